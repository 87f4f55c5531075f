"""GL101's kernel form: a cell re-run that adds its ops to the same graph again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphlint.jupyter.rules import CellRun, Cells, KernelRule, at, label, runs_text
from graphlint.rules.graph_rebuilt import GraphRebuilt
from graphlint.text import plural

if TYPE_CHECKING:
    from graphlint.findings import FindingSink
    from graphlint.stacks import LazyStack, Stack


class Kernel(KernelRule):
    """A cell re-run that adds its ops to the same graph again (GL101, kernel form)."""

    rule = GraphRebuilt
    fix = (
        "Build the graph once: start the cell with `tf.compat.v1.reset_default_graph()` (and "
        "recreate the session), or build it under `with tf.Graph().as_default():`; or restart "
        "the kernel before running the cell again."
    )
    options = {"min-runs": 2}

    def __init__(self, sink: FindingSink, cells: Cells, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, cells, options)
        # graph id -> cell key -> [[run, its line, ops in the graph after it, ops it added], ...]
        self.graphs: dict[int, dict[str, list[list[Any]]]] = {}

    def graphlint_op_added(self, graph_id: int, graph_kind: str, index: int, stack: Stack | LazyStack) -> None:
        run = self.cells.current
        if run is None or graph_kind != "graph" or stack.site is None:
            return
        per_cell = self.graphs.setdefault(graph_id, {})
        runs = per_cell.setdefault(run.key, [])
        if runs and runs[-1][0] is run:
            runs[-1][2] = index
            runs[-1][3] += 1
        else:
            frames = stack.frames  # the cell's own line: its outermost frame in the cell's code
            own = next((f for f in frames if f.path in run.aliases), None)  # `%%time`'s body
            if own is None:
                own = next((f for f in frames if f.path == run.filename), frames[0] if frames else stack.site)
            runs.append([run, own, index, 1])

    def graphlint_graph_released(self, graph_id: int) -> None:
        self.graphs.pop(graph_id, None)

    def cell_finished(self, run: CellRun) -> None:
        for per_cell in self.graphs.values():
            runs = per_cell.get(run.key)
            if not runs or runs[-1][0] is not run or len(runs) < self.config["min-runs"]:
                continue
            sizes = " → ".join(str(r[2]) for r in runs[-6:])
            first = runs[0]
            added = runs[-1][3]
            self.report(
                f"this cell built its ops into the same graph {len(runs)} times ({runs_text([r[0] for r in runs])}), "
                f"{plural(added, 'more op')} this time; "
                f"ops in the graph after each run: {'… → ' if len(runs) > 6 else ''}{sizes}",
                at(runs[-1][1], run),
                related=[(at(first[1], first[0]), f"the first copy was built by {label(first[0])}")],
            )
