"""GL203's runtime form: the variables of each graph, and reuse asked for a name none has."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphlint.rules.reuse_missing_variable import ReuseMissingVariable
from graphlint.rules._state import SeesVariables

if TYPE_CHECKING:
    from graphlint.stacks import Frame


class Runtime(ReuseMissingVariable, SeesVariables):
    """ReuseMissingVariable at runtime: the hooks, and the state they keep."""

    def graphlint_variable_refused(self, graph_id: int, name: str, reason: str, site: Frame | None) -> None:
        if reason != "missing":
            return
        import difflib

        close = difflib.get_close_matches(name, self.sites.names(graph_id), n=1, cutoff=0.6)
        related = [(self.sites.get(graph_id, close[0]), f"did you mean '{close[0]}', created here?")] if close else []
        self.report(
            f"reuse was requested for variable '{name}', but no variable of that name was ever "
            "created in this graph",
            site,
            related=related,
        )
