"""GL504's runtime form: small-batch predict calls per line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from graphlint.rules.predict_in_loop import PredictInLoop
from graphlint.text import plural


if TYPE_CHECKING:  # the runtime engine's: `graphlint check` never imports it
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame


_DEFAULT_BATCH = 32  # Keras' predict batch size when none is given


@dataclass(slots=True)
class _Site:
    """The small-batch ``predict`` calls at one line."""

    site: Frame  # the line
    calls: int = 0
    rows: int = 0  # the largest batch among them


class Runtime(PredictInLoop):
    """PredictInLoop at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.sites: dict[tuple[str, int], _Site] = {}  # (path, line) -> its small-batch calls

    def graphlint_predict_called(self, rows: int | None, batch_size: int | None, site: Frame | None) -> None:
        if site is None or rows is None or rows > (batch_size or _DEFAULT_BATCH):
            return
        entry = self.sites.get(site[:2])
        if entry is None:
            entry = self.sites[site[:2]] = _Site(site)
        entry.calls += 1
        entry.rows = max(entry.rows, rows)

    def graphlint_run_finished(self) -> None:
        limit = self.config["max-calls"]
        for entry in self.sites.values():
            if entry.calls > limit:
                self.report(
                    f"`predict` called {entry.calls} times at this line on small batches (at most "
                    f"{plural(entry.rows, 'row')} each): each call sets up a data pipeline and may retrace",
                    entry.site,
                )
        self.sites.clear()

