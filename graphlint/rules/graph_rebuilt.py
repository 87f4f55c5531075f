"""GL101 graph-rebuilt."""

from __future__ import annotations

import bisect

from graphlint.findings import Severity
from graphlint.rules._base import Rule
from graphlint.rules._state import PerGraph
from graphlint.sites import Stack
from graphlint.static.hits import report_hits
from graphlint.static.rebuilds import graph_rebuilt


class _Copy:
    """One invocation of a building function: the ops it added to one graph."""

    __slots__ = ("stack", "start", "end", "linked", "own")

    def __init__(self, stack: Stack, index: int):
        self.stack = stack
        self.start = index
        self.end = index
        self.linked = False  # consumes an earlier copy's output (a stacked layer, shared variables)
        self.own: dict | None = None  # the ancestry of this copy's ops that have no inputs


class _Group:
    """The ops built directly by one function, split into its invocations (copies)."""

    __slots__ = ("token", "copies", "merged")

    def __init__(self):
        self.token = None
        self.copies: list[_Copy] = []
        self.merged = False  # a later op combines several copies (branches, towers)


class _Graph:
    __slots__ = ("groups", "tags", "ancestry", "runs", "last_index", "base")

    def __init__(self):
        self.groups: dict[tuple, _Group] = {}
        self.tags: dict[int, tuple] = {}  # id(op) -> (group key, copy index)
        # id(op) -> {group key: latest copy index among the op's transitive inputs, itself
        # included}; ops with the same ancestry share one dict.
        self.ancestry: dict[int, dict] = {}
        self.runs: list[int] = []  # op counts at which a session ran the graph
        self.last_index = 0
        # Ops the graph held before the first op seen here (a pytest test's scope starts with
        # whatever earlier tests built): sizes are counted from there, so they do not depend
        # on which tests ran before in the same process.
        self.base: int | None = None


class GraphRebuilt(Rule):
    """The same code builds its ops into the same graph more than once.

    ## What it does
    Follows which function built each op. When a function's later call adds a fresh,
    independent copy of what its earlier call built — not fed by the earlier copy, directly or
    through other code (as stacked layers are), and not combined with it later (as branches
    and towers are) — it reports where the repeated build starts, how many copies there are,
    and the graph's size after each
    (`14 → 28 → 42 ops`).

    ## Why is this bad?
    In TF1-style code there is one global default graph. A model built inside `forecast()`,
    `predict()` or `__call__` adds another copy of itself on every call: the graph grows without
    end, every call pays for op creation and a new pruned subgraph, and the second call may die
    with `Variable weight_def/weights already exists, disallowed`. `with tf.Graph():` does not
    help (see GL103).

    ## Example
    ```python
    class Forecaster:
        def forecast(self, x):
            inputs = tf.compat.v1.placeholder(tf.float32, [None, 4])
            y = tf.matmul(inputs, tf.ones([4, 1]))  # a new copy per call
            return self.sess.run(y, {inputs: x})
    ```

    ## Use instead
    ```python
    class Forecaster:
        def __init__(self):
            self.graph = tf.Graph()
            with self.graph.as_default():  # build once
                self.inputs = tf.compat.v1.placeholder(tf.float32, [None, 4])
                self.y = tf.matmul(self.inputs, tf.ones([4, 1]))
            self.graph.finalize()
            self.sess = tf.compat.v1.Session(graph=self.graph)

        def forecast(self, x):
            return self.sess.run(self.y, {self.inputs: x})
    ```
    """

    code = "GL101"
    name = "graph-rebuilt"
    severity = Severity.WARNING
    summary = "the same code builds its ops into the same graph more than once"
    fix = (
        "Build the model once (in __init__ or before the loop, under its own "
        "`tf.Graph().as_default()`), keep its tensors, and only run them per call; "
        "`graph.finalize()` turns any later rebuild into an error."
    )
    engines = ("runtime", "static")

    def check_module(self, module):
        """Static form: see :func:`graphlint.static.rebuilds.graph_rebuilt`."""
        report_hits(self, module, graph_rebuilt(module))

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.graphs: PerGraph[_Graph] = PerGraph(_Graph)

    # -- events ----------------------------------------------------------------------------
    def graphlint_op_added(self, graph_id, graph_kind, op, inputs, index, stack):
        site = stack.site
        if graph_kind != "graph" or site is None:
            return
        state = self.graphs[graph_id]
        if state.base is None:
            state.base = index - 1
        state.last_index = index
        key = (site.path, site.function)
        group = state.groups.get(key)
        if group is None:
            group = state.groups[key] = _Group()
        token = stack.call
        if group.token != token:
            group.token = token
            group.copies.append(_Copy(stack, index))
        k = len(group.copies) - 1
        copy = group.copies[k]
        copy.end = index
        tags = state.tags
        tags[id(op)] = (key, k)
        seen: dict[tuple, int] = {}
        ancestry = state.ancestry
        inherited = _NO_ANCESTRY
        for tensor in op.inputs if inputs is None else inputs:
            source = id(tensor.op)
            before = ancestry.get(source, _NO_ANCESTRY)
            if before.get(key, k) < k:
                copy.linked = True  # fed, possibly through other code, by an earlier copy
            inherited = _union(inherited, before)
            tag = tags.get(source)
            if tag is None:
                continue
            other_key, j = tag
            previous = seen.setdefault(other_key, j)
            if previous != j:
                state.groups[other_key].merged = True
        if not inherited:
            if copy.own is None:
                copy.own = {key: k}
            inherited = copy.own
        elif inherited.get(key) != k:
            inherited = {**inherited, key: k}
        ancestry[id(op)] = inherited

    def graphlint_session_run(self, graph_id):
        state = self.graphs.get(graph_id)
        if state is not None and (not state.runs or state.runs[-1] != state.last_index):
            state.runs.append(state.last_index)

    def graphlint_graph_released(self, graph_id):
        self._judge(self.graphs.pop(graph_id))

    def graphlint_run_finished(self):
        for graph_id, _ in self.graphs.items():
            self._judge(self.graphs.pop(graph_id))

    # -- judgement -------------------------------------------------------------------------
    def _judge(self, state: _Graph | None) -> None:
        if state is None:
            return
        builds: dict[tuple, dict[int, list]] = {}
        for group in state.groups.values():
            if group.merged or len(group.copies) < 2:
                continue
            for previous, copy in zip(group.copies, group.copies[1:]):
                if copy.linked:
                    continue
                level = _build_level(previous.stack, copy.stack)
                if level is None:
                    continue
                if level == _same_calls and not _ran_between(state.runs, previous.end, copy.start):
                    continue  # e.g. parallel heads built in one loop, never run in between
                depth = level if level != _same_calls else len(copy.stack.frames) - 1
                frame = copy.stack.frames[depth]
                build_key = (frame.path, frame.function, depth)
                calls = builds.setdefault(build_key, {})
                for c in (previous, copy):
                    token = c.stack.calls[depth]
                    entry = calls.setdefault(token, [c.stack.frames[depth], c.start, c.end, c.stack, depth])
                    if c.start < entry[1]:
                        entry[0], entry[1] = c.stack.frames[depth], c.start
                    entry[2] = max(entry[2], c.end)
        for (_path, function, depth), calls in builds.items():
            copies = sorted(calls.values(), key=lambda e: e[1])
            sizes = " → ".join(str(e[2] - state.base) for e in copies[:6]) + (" → …" if len(copies) > 6 else "")
            where = copies[1][0]
            related = []
            if depth > 0:
                for n, e in enumerate(copies[:3], 1):
                    related.append((e[3].frames[depth - 1], f"copy {n} built by this call"))
            name = "the module" if function == "<module>" else f"`{function}()`"
            self.report(
                f"{name} built its ops into the same graph {len(copies)} times; "
                f"ops in the graph after each copy: {sizes}",
                where,
                related=related,
            )


_same_calls = -1  # the two copies differ only in the innermost invocation
_NO_ANCESTRY: dict = {}


def _union(a: dict, b: dict) -> dict:
    """The per-group latest copies of ``a`` and ``b`` together (``a`` itself when it has all)."""
    if not b or a is b:
        return a
    if not a:
        return b
    merged = None
    for key, j in b.items():
        if a.get(key, -1) < j:
            if merged is None:
                merged = dict(a)
            merged[key] = j
    return a if merged is None else merged


def _build_level(a: Stack, b: Stack) -> int | None:
    """The depth of the function whose repeated call built the second copy.

    Two copies share the outer frames up to some depth; the first frame that differs is either
    a different call of the same function (its invocation id differs: that function is the
    repeated build) or a different line of the same invocation (the function it calls there
    is). ``_same_calls`` when only the innermost frame's invocation differs.
    """
    fa, fb = a.frames, b.frames
    if len(fa) != len(fb):
        return None
    last = len(fa) - 1
    for depth in range(last):
        if fa[depth][:3:2] != fb[depth][:3:2]:
            return None  # different functions: not the same code
        if a.calls[depth] != b.calls[depth]:
            return depth
        if fa[depth].line != fb[depth].line:
            return depth + 1
    return _same_calls


def _ran_between(runs: list[int], end: int, start: int) -> bool:
    i = bisect.bisect_left(runs, end)
    return i < len(runs) and runs[i] < start
