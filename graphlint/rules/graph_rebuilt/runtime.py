"""GL101's runtime form: which function built each op, copy by copy, and which calls ran the graph."""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from graphlint.rules.graph_rebuilt import GraphRebuilt
from graphlint.rules._state import PerGraph


if TYPE_CHECKING:  # the runtime engine's: `graphlint check` never imports it
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame, LazyStack, Stack


class _Copy:
    """One invocation of a building function: the ops it added to one graph."""

    __slots__ = ("stack", "start", "end", "model", "made", "reads", "types")

    def __init__(self, stack: Stack, index: int) -> None:
        self.stack = stack
        self.start = index
        self.end = index
        self.model = False  # it made a placeholder: a model's inputs, to be fed
        self.made: set[int] = set()  # ids of its ops
        self.reads: set[int] = set()  # ids of the ops its ops read
        self.types: set[object] = set()  # the types of its ops (and its state's shapes): what it computes


class _Group:
    """The ops built directly by one function, split into its invocations (copies)."""

    __slots__ = ("token", "copies")

    def __init__(self) -> None:
        self.token: int | None = None
        self.copies: dict[int, _Copy] = {}  # invocation id -> its copy, in order of first op


@dataclass(slots=True)
class _Build:
    """One call of a building function at some depth of the stack: its copies merged."""

    frame: Frame  # the frame of that call
    start: int  # the graph's op count at its first op
    end: int  # ... and at its last
    stack: Stack
    model: bool  # it made a placeholder
    made: set[int] = field(default_factory=set)
    reads: set[int] = field(default_factory=set)
    types: set[object] = field(default_factory=set)

    def add(self, copy: _Copy) -> None:
        """Count ``copy``, built during this call, as part of it."""
        self.model = self.model or copy.model
        self.made |= copy.made
        self.reads |= copy.reads
        self.types |= copy.types


class _GraphOps:
    __slots__ = ("groups", "ran", "last_index", "run_index", "base", "state")

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str], _Group] = {}
        # ids of the graph's variables and placeholders (and of a reference variable's
        # snapshot, which its readers read): a model's state, which tells models apart
        self.state: set[int] = set()
        self.ran: set[int] = set()  # invocations that were on the stack when a session ran the graph
        self.last_index = 0
        self.run_index = -1  # the op count at the last run whose stack was read
        # Ops the graph held before the first op seen here (a pytest test's scope starts with
        # whatever earlier tests built): sizes are counted from there, so they do not depend
        # on which tests ran before in the same process.
        self.base: int | None = None


_same_calls = -1  # the two copies differ only in the innermost invocation
# Ops that hold a model's state: its weights and the inputs it is fed.
_STATE_OPS = frozenset({"Placeholder", "PlaceholderV2", "VariableV2", "Variable", "VarHandleOp"})
# Ops that make a model's inputs: a copy that makes one is a whole model again (it could have
# been fed instead). A fresh variable alone is not: a check helper wraps each case's values in
# one (`backend.variable(x)`), and the copy is that case's computation.
_INPUT_OPS = frozenset({"Placeholder", "PlaceholderV2"})
_MIN_FROM_ONE_LINE = 3  # copies without inputs: this many calls from one line
_IDS_KEPT = 5_000  # op ids remembered per copy


def _state_shape(op: Any) -> tuple[int, ...] | None:
    """The shape of the variable or placeholder ``op`` makes (``None``: unknown rank)."""
    try:
        shape = op.get_attr("shape")
    except ValueError:  # an op without the attribute
        return None
    if getattr(shape, "unknown_rank", True):  # a TensorShapeProto
        return None
    return tuple(d.size for d in shape.dim)


def _fill(builds: dict[tuple, dict[int, _Build]], groups: dict[tuple, _Group]) -> None:
    """Add to each build every op made during its call, by any function (a helper called once
    per call included): what the call computed, not only what its repeated parts did."""
    index = {(depth, token): build for (_, _, depth), calls in builds.items() for token, build in calls.items()}
    if not index:
        return
    for group in groups.values():
        for copy in group.copies.values():
            for depth, token in enumerate(copy.stack.calls):
                build = index.get((depth, token))
                if build is not None:
                    build.add(copy)


def _same_computation(previous: _Build, build: _Build, state: set[int]) -> bool:
    """Does ``build`` compute what ``previous`` did, again?

    Not when each builds an op type the other never does (a loop over a list of ops, a test
    helper called with another op per case), nor when each reads the state — variables,
    placeholders — of another model (three models, each fitted once)."""
    if not (previous.types <= build.types or build.types <= previous.types):
        return False
    theirs = (previous.reads - previous.made) & state
    mine = (build.reads - build.made) & state
    return not (theirs and mine and not mine & (previous.reads | previous.made))


def _rebuilt_copies(calls: dict[int, _Build], graph: _GraphOps, depth: int) -> list[_Build] | None:
    """The copies of one build function that make a rebuild, in order; ``None`` when none do.

    The function must build and run: one of its calls ran a session on the graph (a call may
    die before it runs, as the second `forecast()` does on "already exists"). Two or more
    calls in a row that each made a placeholder and compute the same thing again
    (:func:`_same_computation`) are a model rebuilt; other copies only count when at least
    ``_MIN_FROM_ONE_LINE`` come from one calling line (a loop, a per-request handler) and each
    reads a tensor the call before read too (the same model applied again, not cases looped
    over), never a few calls from different lines.
    """
    if not any(token in graph.ran for token in calls):
        return None
    copies = sorted(calls.values(), key=lambda b: b.start)
    best: list[_Build] = []
    run: list[_Build] = []
    for b in (b for b in copies if b.model):  # the longest run of the same model again
        if run and not _same_computation(run[-1], b, graph.state):
            run = []
        run.append(b)
        if len(run) > len(best):
            best = list(run)
    if len(best) >= 2:
        return best
    if depth == 0:
        return None
    by_line: dict[tuple, list[_Build]] = {}
    for b in copies:
        by_line.setdefault(b.stack.frames[depth - 1][:2], []).append(b)
    best = []
    for line_copies in by_line.values():  # the longest run of calls applying the same tensors
        run = []
        for b in line_copies:
            outside = b.reads - b.made
            if run and not (outside & (run[-1].reads - run[-1].made) and _same_computation(run[-1], b, graph.state)):
                run = []
            run.append(b)
            if len(run) > len(best):
                best = list(run)
    return best if len(best) >= _MIN_FROM_ONE_LINE else None


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
            # different lines of one call: the function each calls there is the repeated
            # build, if it is one function (not fit() on one line and test_on_batch() on the next)
            return depth + 1 if fa[depth + 1][:3:2] == fb[depth + 1][:3:2] else None
    return _same_calls


class Runtime(GraphRebuilt):
    """GraphRebuilt at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.graphs: PerGraph[_GraphOps] = PerGraph(_GraphOps)

    # -- events ----------------------------------------------------------------------------
    def graphlint_op_added(
        self, graph_id: int, graph_kind: str, op: Any, inputs: Sequence[Any] | None, index: int,
        stack: Stack | LazyStack,
    ) -> None:
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
            copy = group.copies.get(token)
            if copy is None:
                from graphlint.stacks import kept

                copy = group.copies[token] = _Copy(kept(stack), index)
        else:
            copy = group.copies[token]
        copy.end = index
        made = copy.made
        if len(made) < _IDS_KEPT:
            kind = op.type
            if not inputs and kind in _STATE_OPS:  # (placeholders and variables take no inputs)
                state.state.add(id(op))
                if kind in _INPUT_OPS:
                    copy.model = True
                copy.types.add((kind, _state_shape(op)))  # a wider model is another model
            else:
                copy.types.add(kind)
                if kind == "Identity" and inputs and len(inputs) == 1 and id(inputs[0].op) in state.state:
                    state.state.add(id(op))  # a reference variable's snapshot: what reads it read
            made.add(id(op))
            if inputs:  # ops from the C API (import_graph_def, while loops) left out: reading is costly
                reads = copy.reads
                for t in inputs:
                    reads.add(id(t.op))

    def graphlint_session_run(self, graph_id: int) -> None:
        state = self.graphs.get(graph_id)
        if state is not None and state.run_index != state.last_index:
            state.run_index = state.last_index  # ops were built since: who is running them?
            from graphlint.stacks import capture

            state.ran.update(capture(0).calls)

    def graphlint_graph_released(self, graph_id: int) -> None:
        self._judge(self.graphs.pop(graph_id))

    def graphlint_run_finished(self) -> None:
        for graph_id, _ in self.graphs.items():
            self._judge(self.graphs.pop(graph_id))

    # -- judgement -------------------------------------------------------------------------
    def _judge(self, state: _GraphOps | None) -> None:
        if state is None:
            return
        builds: dict[tuple, dict[int, _Build]] = {}
        for group in state.groups.values():
            if len(group.copies) < 2:
                continue
            copies = list(group.copies.values())
            for previous, copy in zip(copies, copies[1:]):
                level = _build_level(previous.stack, copy.stack)
                if level is None:
                    continue
                depth = level if level != _same_calls else len(copy.stack.frames) - 1
                frame = copy.stack.frames[depth]
                calls = builds.setdefault((frame.path, frame.function, depth), {})
                for c in (previous, copy):
                    token = c.stack.calls[depth]
                    build = calls.get(token)
                    if build is None:
                        build = calls[token] = _Build(c.stack.frames[depth], c.start, c.end, c.stack, c.model)
                    elif c.start < build.start:
                        build.frame, build.start = c.stack.frames[depth], c.start
                    build.end = max(build.end, c.end)
        _fill(builds, state.groups)
        for (_path, function, depth), calls in builds.items():
            rebuilt = _rebuilt_copies(calls, state, depth)
            if rebuilt is None:
                continue
            base = state.base
            assert base is not None, "set by the graph's first op, before any copy"
            sizes = " → ".join(str(b.end - base) for b in rebuilt[:6]) + (" → …" if len(rebuilt) > 6 else "")
            related = []
            if depth > 0:
                callers = [b.stack.frames[depth - 1] for b in rebuilt]
                if len({c[:2] for c in callers}) == 1:
                    related.append((callers[0], f"all {len(rebuilt)} copies built by calls from this line"))
                else:
                    for n, caller in enumerate(callers[:3], 1):
                        related.append((caller, f"copy {n} built by this call"))
            name = "the module" if function == "<module>" else f"`{function}()`"
            self.report(
                f"{name} built its ops into the same graph {len(rebuilt)} times; "
                f"ops in the graph after each copy: {sizes}",
                rebuilt[1].frame,
                related=related,
            )
