"""GL202's runtime form: where each variable was first created, and the get_variable calls TensorFlow refused."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphlint.rules.variable_exists import VariableExists
from graphlint.rules._state import SeesVariables, two_sites

if TYPE_CHECKING:
    from graphlint.stacks import Frame, Stack


class Runtime(VariableExists, SeesVariables):
    """VariableExists at runtime: the hooks, and the state they keep."""

    def graphlint_variable_refused(self, graph_id: int, name: str, reason: str, site: Frame | None, stack: Stack) -> None:
        if reason != "exists":
            return
        self.report(
            f"variable '{name}' already exists and reuse is off: this code builds it a second "
            "time into the same graph",
            site,
            related=two_sites(
                self.sites.stack(graph_id, name),
                stack,
                f"'{name}' was first created here",
                "the second build was asked for here",
            ),
        )
