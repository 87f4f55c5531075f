"""GL204's runtime form: the variables each initializer op covers, and the runs that used variables it does not."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from graphlint.rules.variable_not_initialized import VariableNotInitialized
from graphlint.rules._state import PerGraph, quoted
from graphlint.text import plural

if TYPE_CHECKING:
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame


class _Initialization:
    def __init__(self) -> None:
        self.created: list[tuple[str, Frame | None]] = []  # (name, site) in creation order
        self.first_init: tuple[int, Frame | None] | None = None  # (index into created, site)
        self.covered: set[str] = set()


class Runtime(VariableNotInitialized):
    """VariableNotInitialized at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.graphs: PerGraph[_Initialization] = PerGraph(_Initialization)

    def graphlint_graph_created(self, graph_id: int, kind: str) -> None:
        if kind != "graph":
            self.graphs.pop(graph_id)

    def graphlint_variable_created(self, graph_id: int, name: str, site: Frame | None) -> None:
        self.graphs[graph_id].created.append((name, site))

    def graphlint_initializer_built(self, graph_id: int, variables: list[str], site: Frame | None) -> None:
        state = self.graphs[graph_id]
        if state.first_init is None:
            state.first_init = (len(state.created), site)
        state.covered.update(variables)

    def graphlint_graph_released(self, graph_id: int) -> None:
        self._judge(self.graphs.pop(graph_id))

    def graphlint_run_finished(self) -> None:
        for graph_id, state in self.graphs.items():
            self._judge(state)
            self.graphs.pop(graph_id)

    def _judge(self, state: _Initialization | None) -> None:
        if state is None or state.first_init is None:
            return
        start, init_site = state.first_init
        missing: defaultdict[Frame, list[str]] = defaultdict(list)
        for name, site in state.created[start:]:
            if name not in state.covered and site is not None:
                missing[site].append(name)
        for site, names in missing.items():
            self.report(
                f"{plural(len(names), 'variable')} created after the initializer was built "
                f"will never be initialized: {quoted(names)}",
                site,
                related=[(init_site, "the initializer was built here, before them")],
            )

