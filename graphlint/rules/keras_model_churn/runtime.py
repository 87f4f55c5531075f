"""GL503's runtime form: Keras models built per line and Keras session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphlint.rules.keras_model_churn import KerasModelChurn

if TYPE_CHECKING:  # the runtime engine's: `graphlint check` never imports it
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame


@dataclass(slots=True)
class _Site:
    """The Keras models built at one line in one Keras session."""

    site: Frame  # the line
    class_name: str  # the first model's class
    models: int = 0


class Runtime(KerasModelChurn):
    """KerasModelChurn at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.sites: dict[tuple[tuple[tuple[str, int], ...], int], _Site] = {}  # (call path, session) -> the models built there

    # -- runtime form ----------------------------------------------------------------------
    def graphlint_keras_model_built(self, class_name: str, site: Frame | None, session: int) -> None:
        if site is None:
            return
        from graphlint.stacks import capture

        # The same line reached the same way: three models built from three lines of a test
        # all pass through one line of a wrapper (a decorator's `return fn(*args)`).
        key = (tuple(frame[:2] for frame in capture(0).frames), session)
        entry = self.sites.get(key)
        if entry is None:
            entry = self.sites[key] = _Site(site, class_name)
        entry.models += 1

    def graphlint_run_finished(self) -> None:
        limit = self.config["max-per-site"]
        for entry in self.sites.values():
            if entry.models > limit:
                self.report(
                    f"{entry.models} Keras models (`{entry.class_name}`) built at this line with no "
                    "`clear_session()` between them: Keras' global state keeps growing",
                    entry.site,
                )
        self.sites.clear()

