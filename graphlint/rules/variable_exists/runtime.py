"""GL202's runtime form: where each variable was first created, and the get_variable calls TensorFlow refused."""

from __future__ import annotations
from graphlint.rules.variable_exists import VariableExists
from graphlint.rules._state import VariableSites, two_sites


class Runtime(VariableExists):
    """VariableExists at runtime: the hooks, and the state they keep."""

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.sites = VariableSites()

    def graphlint_variable_created(self, graph_id, name, stack):
        self.sites.add(graph_id, name, stack)

    def graphlint_variable_refused(self, graph_id, name, reason, site, stack):
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

    def graphlint_graph_released(self, graph_id):
        self.sites.release(graph_id)

