"""The kernel forms of GL101, GL502 and GL503: what re-running a notebook cell does.

In a notebook the repeated call is the cell itself: running the cell that builds the model a
second time builds it again. These rules compare a cell's runs with each other (a cell is known
by its notebook cell id when the front end sends one, else by its text), through the same
events as the program rules; the extension tells them which cell run is current
(:class:`Cells`) and asks them to judge when it ends (:meth:`cell_finished`). Thresholds fit
interactive use, where running a cell twice is normal:

- GL101: the second run of a cell that adds ops to a graph it already added ops to
  (a TF1 default graph: the model is in it twice);
- GL502: the third `tf.function` made at one line by runs of one cell, while an earlier one
  had already been traced (each re-run throws the traces away);
- GL503: the third run of a cell that builds a Keras model at one line with no
  `clear_session()` since the first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphlint.findings import Location, Severity
from graphlint.rules._base import Rule
from graphlint.text import plural


@dataclass
class CellRun:
    """One execution of one cell: ``key`` names the cell across runs, ``count`` is its
    ``In [n]`` (known once it ran)."""

    key: str
    count: int | None = None
    filename: str = ""  # the name the cell's code is compiled under
    aliases: tuple[str, ...] = ()  # names its body runs under too (`%%time`: "<timed exec>")


@dataclass
class Cells:
    """Which cell run is in progress (set by the extension around each cell)."""

    current: CellRun | None = None
    runs: list[CellRun] = field(default_factory=list)


def _label(run: CellRun) -> str:
    return f"In [{run.count}]" if run.count is not None else "In [ ]"


def _at(site, run: CellRun) -> Location:
    """``site`` (a user frame) as a Location that remembers the run: ``In [n]``, not the
    cell's latest count, names it."""
    return Location(site.path, site.line, 1, site.function, cell=run.count)


def _runs(runs: list[CellRun]) -> str:
    labels = [_label(r) for r in runs]
    return ", ".join(labels[:4] + (["…"] if len(labels) > 5 else []) + labels[4:][-1:])


class _CellRule(Rule):
    engines = ("runtime",)

    def __init__(self, sink, cells: Cells, options=None):
        super().__init__(sink, options)
        self.cells = cells

    def cell_finished(self, run: CellRun) -> None:
        """Judge what ``run`` did (called by the extension after the cell)."""


class CellGraphRebuilt(_CellRule):
    """A cell re-run that adds its ops to the same graph again (GL101, kernel form)."""

    code = "GL101"
    name = "graph-rebuilt"
    severity = Severity.WARNING
    fix = (
        "Build the graph once: start the cell with `tf.compat.v1.reset_default_graph()` (and "
        "recreate the session), or build it under `with tf.Graph().as_default():`; or restart "
        "the kernel before running the cell again."
    )
    options = {"min-runs": 2}

    def __init__(self, sink, cells, options=None):
        super().__init__(sink, cells, options)
        # graph id -> cell key -> [[run, its line, ops in the graph after it, ops it added], ...]
        self.graphs: dict[int, dict[str, list[list]]] = {}

    def graphlint_op_added(self, graph_id, graph_kind, index, stack):
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

    def graphlint_graph_released(self, graph_id):
        self.graphs.pop(graph_id, None)

    def cell_finished(self, run):
        for per_cell in self.graphs.values():
            runs = per_cell.get(run.key)
            if not runs or runs[-1][0] is not run or len(runs) < self.config["min-runs"]:
                continue
            sizes = " → ".join(str(r[2]) for r in runs[-6:])
            first = runs[0]
            added = runs[-1][3]
            self.report(
                f"this cell built its ops into the same graph {len(runs)} times ({_runs([r[0] for r in runs])}), "
                f"{plural(added, 'more op')} this time; "
                f"ops in the graph after each run: {'… → ' if len(runs) > 6 else ''}{sizes}",
                _at(runs[-1][1], run),
                related=[(_at(first[1], first[0]), f"the first copy was built by {_label(first[0])}")],
            )


class CellFunctionRecreated(_CellRule):
    """A cell re-run that makes its `tf.function` again, dropping the traces (GL502, kernel form)."""

    code = "GL502"
    name = "function-recreated"
    severity = Severity.WARNING
    fix = (
        "Define the tf.function in a cell you run once (or guard it: `if 'step' not in "
        "globals():`), and re-run only the cells that call it."
    )
    options = {"min-definitions": 3}

    def __init__(self, sink, cells, options=None):
        super().__init__(sink, cells, options)
        self.functions: dict[int, list] = {}  # function id -> [run, site key, traces]
        self.sites: dict[tuple, list[list]] = {}  # (cell key, path, line) -> [[run, site, fn entry], ...]

    def graphlint_function_created(self, function_id, site, by_user):
        run = self.cells.current
        if run is None or not by_user or site is None:
            return
        entry = [run, site, 0]
        self.functions[function_id] = entry
        made = self.sites.setdefault((run.key, site.path, site.line), [])
        if not made or made[-1][0] is not run:
            made.append(entry)

    def graphlint_function_traced(self, function_id, trace_count):
        entry = self.functions.get(function_id)
        if entry is not None:
            entry[2] = max(entry[2], trace_count)

    def graphlint_function_released(self, function_id):
        self.functions.pop(function_id, None)  # its entry stays in .sites with its traces

    def cell_finished(self, run):
        for (key, _path, _line), made in self.sites.items():
            if key != run.key or made[-1][0] is not run or len(made) < self.config["min-definitions"]:
                continue
            traces = sum(e[2] for e in made[:-1])
            if not traces:
                continue  # nothing was traced: nothing was thrown away
            self.report(
                f"re-running this cell made a new `tf.function` at this line {len(made)} times "
                f"({_runs([e[0] for e in made])}); the earlier ones' "
                f"{plural(traces, 'trace')} were thrown away, and the new one traces again",
                _at(made[-1][1], run),
                related=[(_at(made[0][1], made[0][0]), f"the first one was made by {_label(made[0][0])}")],
            )


class CellModelChurn(_CellRule):
    """A cell re-run that builds its Keras model again with no `clear_session()` (GL503, kernel form)."""

    code = "GL503"
    name = "keras-model-churn"
    severity = Severity.WARNING
    fix = (
        "Call `tf.keras.backend.clear_session()` at the top of the cell that builds the model, "
        "so that each run starts from a clean Keras state."
    )
    options = {"min-runs": 3}

    def __init__(self, sink, cells, options=None):
        super().__init__(sink, cells, options)
        # (cell key, path, line, Keras session) -> [[run, site, class name], ...]
        self.sites: dict[tuple, list[list]] = {}

    def graphlint_keras_model_built(self, class_name, site, session):
        run = self.cells.current
        if run is None or site is None:
            return
        built = self.sites.setdefault((run.key, site.path, site.line, session), [])
        if not built or built[-1][0] is not run:
            built.append([run, site, class_name])

    def cell_finished(self, run):
        for key, built in self.sites.items():
            if key[0] != run.key or built[-1][0] is not run or len(built) < self.config["min-runs"]:
                continue
            self.report(
                f"this cell built a Keras model (`{built[-1][2]}`) at this line in {len(built)} runs "
                f"({_runs([b[0] for b in built])}) with no `clear_session()` between them: Keras' "
                "global state keeps every model, and layer names count up",
                _at(built[-1][1], run),
                related=[(_at(built[0][1], built[0][0]), f"the first model was built by {_label(built[0][0])}")],
            )


CELL_RULES = (CellGraphRebuilt, CellFunctionRecreated, CellModelChurn)
