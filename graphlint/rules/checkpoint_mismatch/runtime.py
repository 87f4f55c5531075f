"""GL401's runtime form: the variables a restore's graph holds and the checkpoint lacks."""

from __future__ import annotations

from collections import defaultdict
from graphlint.rules.checkpoint_mismatch import CheckpointMismatch
from graphlint.rules._state import VariableSites, quoted
from graphlint.text import plural


class Runtime(CheckpointMismatch):
    """CheckpointMismatch at runtime: the hooks, and the state they keep."""

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.sites = VariableSites()

    def graphlint_variable_created(self, graph_id, name, stack):
        self.sites.add(graph_id, name, stack)

    def graphlint_checkpoint_restore(self, graph_id, saver_names, checkpoint_names, save_path, site):
        stored = set(checkpoint_names)
        missing = [name for name in saver_names if name not in stored]
        if not missing:
            return
        by_site = defaultdict(list)
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

    def graphlint_graph_released(self, graph_id):
        self.sites.release(graph_id)

