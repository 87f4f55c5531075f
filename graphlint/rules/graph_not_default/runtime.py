"""GL103's runtime form: a `with` entered on a graph itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphlint.rules.graph_not_default import GraphNotDefault

if TYPE_CHECKING:
    from graphlint.stacks import Frame


class Runtime(GraphNotDefault):
    """GraphNotDefault at runtime: the hooks, and the state they keep."""

    def graphlint_graph_entered(self, site: Frame | None) -> None:
        self.report(
            "`with tf.Graph():` does not make the graph the default: ops built in this block "
            "still go to the global default graph",
            site,
        )

