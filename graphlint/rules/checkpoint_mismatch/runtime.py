"""GL401's runtime form: the variables a restore's graph holds and the checkpoint lacks."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from graphlint.rules.checkpoint_mismatch import CheckpointMismatch
from graphlint.rules._state import SeesVariables, quoted
from graphlint.text import plural

if TYPE_CHECKING:
    from graphlint.stacks import Frame


class Runtime(CheckpointMismatch, SeesVariables):
    """CheckpointMismatch at runtime: the hooks, and the state they keep."""

    def graphlint_checkpoint_restore(
        self, graph_id: int, saver_names: list[str], checkpoint_names: list[str], save_path: str, site: Frame | None
    ) -> None:
        stored = set(checkpoint_names)
        missing = [name for name in saver_names if name not in stored]
        if not missing:
            return
        by_site: defaultdict[Frame | None, list[str]] = defaultdict(list)
        for name in missing:
            by_site[self.sites.get(graph_id, name)].append(name)
        related = [
            (where, f"{quoted(names, 3)} created here")
            for where, names in by_site.items()
            if where is not None
        ]
        self.report(
            f"restore expects {plural(len(missing), 'variable')} that checkpoint "
            f"'{save_path}' does not hold: {quoted(missing, 8)}",
            site,
            related=related[:5],
        )

