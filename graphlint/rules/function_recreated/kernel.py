"""GL502's kernel form: a cell re-run that makes its `tf.function` again, dropping the traces."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphlint.jupyter.rules import CellRun, Cells, KernelRule, at, label, runs_text
from graphlint.rules.function_recreated import FunctionRecreated
from graphlint.text import plural

if TYPE_CHECKING:
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame


class Kernel(KernelRule):
    """A cell re-run that makes its `tf.function` again, dropping the traces (GL502, kernel form)."""

    rule = FunctionRecreated
    fix = (
        "Define the tf.function in a cell you run once (or guard it: `if 'step' not in "
        "globals():`), and re-run only the cells that call it."
    )
    options = {"min-definitions": 3}

    def __init__(self, sink: FindingSink, cells: Cells, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, cells, options)
        self.functions: dict[int, list[Any]] = {}  # function id -> [run, site key, traces]
        self.sites: dict[tuple[str, str, int], list[list[Any]]] = {}  # (cell key, path, line) -> [[run, site, fn entry], ...]

    def graphlint_function_created(self, function_id: int, site: Frame | None, by_user: bool) -> None:
        run = self.cells.current
        if run is None or not by_user or site is None:
            return
        entry: list[Any] = [run, site, 0]
        self.functions[function_id] = entry
        made = self.sites.setdefault((run.key, site.path, site.line), [])
        if not made or made[-1][0] is not run:
            made.append(entry)

    def graphlint_function_traced(self, function_id: int, trace_count: int) -> None:
        entry = self.functions.get(function_id)
        if entry is not None:
            entry[2] = max(entry[2], trace_count)

    def graphlint_function_released(self, function_id: int) -> None:
        self.functions.pop(function_id, None)  # its entry stays in .sites with its traces

    def cell_finished(self, run: CellRun) -> None:
        for (key, _path, _line), made in self.sites.items():
            if key != run.key or made[-1][0] is not run or len(made) < self.config["min-definitions"]:
                continue
            traces = sum(e[2] for e in made[:-1])
            if not traces:
                continue  # nothing was traced: nothing was thrown away
            self.report(
                f"re-running this cell made a new `tf.function` at this line {len(made)} times "
                f"({runs_text([e[0] for e in made])}); the earlier ones' "
                f"{plural(traces, 'trace')} were thrown away, and the new one traces again",
                at(made[-1][1], run),
                related=[(at(made[0][1], made[0][0]), f"the first one was made by {label(made[0][0])}")],
            )
