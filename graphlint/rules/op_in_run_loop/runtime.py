"""GL102's runtime form: ops added while a session runs the graph step after step, and the lines that added them."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphlint.rules.op_in_run_loop import OpInRunLoop

if TYPE_CHECKING:  # the runtime engine's: `graphlint check` never imports it
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame, LazyStack, Stack


@dataclass(slots=True)
class _Built:
    """The ops one line built into a graph since its last run. The stack of the first is kept
    (so the probe hands over the whole of it)."""

    stack: Stack
    ops: int = 0
    inputs: set[int] = field(default_factory=set)  # ids of the ops they read (or wait for)
    made: set[int] = field(default_factory=set)  # their ids
    kind: int = 0  # a hash of their types and shapes, in order


@dataclass(slots=True)
class _Step:
    """What one step of a run loop built, from one of the loop's lines."""

    where: Frame  # the loop's line
    inner: Frame  # the line that built the first op
    ops: int = 0
    outside: set[int] = field(default_factory=set)  # ids of ops older than this step it read
    kind: int = 0  # what it built (types and shapes)


class _Loop:
    """One line of a run loop that builds ops: how many steps in a row built the same thing.

    A step repeats the previous one when it builds the same ops (types and shapes) and they
    read only tensors the previous step read too or built (`assign_add(total, x)` again, `x = x
    + 1` on the last step's `x`, an initializer waiting on every earlier step's variable); a
    test looping over a few configurations reads other tensors, or builds other shapes or
    other ops, at each step and never repeats.
    """

    __slots__ = ("where", "inner", "steps", "best", "ops", "outside", "made", "kind")

    def __init__(self, where: Frame, inner: Frame) -> None:
        self.where, self.inner = where, inner
        self.steps = self.best = self.ops = 0
        self.outside: set[int] = set()
        self.made: set[int] = set()
        self.kind = 0

    def step(self, ops: int, outside: set[int], made: set[int], kind: int) -> None:
        """Count a step that built ``ops`` ops here (``kind``) reading ``outside``; ``made``: what
        the whole step built, from every line."""
        # (a step that reads nothing older builds from Python values only: a case, not a rebuild)
        repeats = self.steps and kind == self.kind and outside and outside <= (self.outside | self.made)
        self.steps = self.steps + 1 if repeats else 1
        if self.steps >= self.best:
            self.best = self.steps
            self.ops = ops if self.steps == 1 else self.ops + ops
        self.outside, self.made, self.kind = outside, made, kind


def _dims(tensor: Any) -> tuple[int | None, ...] | None:
    shape = tensor.shape
    return None if shape.rank is None else tuple(shape.as_list())


_MAX_KEYS = 20_000
_MAX_INPUTS = 10_000  # input op ids remembered per line and step


class Runtime(OpInRunLoop):
    """OpInRunLoop at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.ran: set[int] = set()
        # graph -> {site: the ops built there since the last run}
        self.pending: dict[int, dict[tuple[str, int], _Built]] = defaultdict(dict)
        # (graph, run-loop invocation, its line that builds) -> _Loop
        self.loops: dict[tuple[int, int, tuple[str, int]], _Loop] = {}
        # graph -> the invocations on the stack of its last run: ops built afterwards inside
        # one of them were built by a function that runs the graph itself, once per call
        self.last_run: dict[int, set[int]] = {}

    def graphlint_op_added(
        self, graph_id: int, graph_kind: str, op: Any, inputs: Any, site: Frame | None, stack: Stack | LazyStack
    ) -> None:
        if graph_id not in self.ran or graph_kind != "graph" or site is None:
            return
        pending = self.pending[graph_id]
        entry = pending.get(site[:2])
        if entry is None:
            from graphlint.stacks import kept

            entry = pending[site[:2]] = _Built(kept(stack))
        entry.ops += 1
        entry.made.add(id(op))
        # What the op computes: its type and the shapes it makes (a test's loop over
        # configurations builds other shapes at each step; a run loop the same ones again).
        entry.kind = hash((entry.kind, op.type, tuple(_dims(t) for t in op.outputs)))
        if len(entry.inputs) < _MAX_INPUTS:
            if inputs:  # C-API ops (inputs None) left out: costly to read
                entry.inputs.update(id(t.op) for t in inputs)
            control = op.control_inputs  # an initializer waits on every variable's assignment
            if control:
                entry.inputs.update(id(c) for c in control)

    def graphlint_session_run(self, graph_id: int, ops_added: int) -> None:
        self.ran.add(graph_id)
        pending = self.pending.pop(graph_id, None)
        from graphlint.stacks import capture

        run = capture(0).calls  # the user's invocations running the graph now
        previous, self.last_run[graph_id] = self.last_run.get(graph_id, ()), set(run)
        if not pending or not ops_added:
            return
        created = set().union(*(entry.made for entry in pending.values()))
        steps: dict[tuple[int, int, tuple[str, int]], _Step] = {}
        for built in pending.values():
            stack = built.stack
            calls = stack.calls
            common = 0
            for building, running in zip(calls, run):
                if building != running:
                    break
                common += 1
            if not common:
                continue  # built in another thread's code: not this loop's step
            if any(call in previous for call in calls[common:]):
                # Built inside a call that had run the graph itself (a per-call function
                # that builds and runs, as a Keras backend function fed variables does):
                # one cause, GL101's, not a second finding here.
                continue
            # The innermost invocation that both built these ops and ran the graph: a run loop
            # keeps it from step to step (a function that builds and runs per call is a new
            # invocation each time: GL101's case). Its line that led to the ops is the loop's.
            where = stack.frames[common - 1]
            key = (graph_id, calls[common - 1], where[:2])
            step = steps.get(key)
            if step is None:
                step = steps[key] = _Step(where, stack.frames[-1])  # (common > 0: it has frames)
            step.ops += built.ops
            step.outside |= built.inputs - created  # tensors that existed before this step
            step.kind = hash((step.kind, built.kind))
        for key, step in steps.items():
            loop = self.loops.get(key)
            if loop is None:
                if len(self.loops) >= _MAX_KEYS:  # bounded: forget what has not repeated
                    self.loops = {k: v for k, v in self.loops.items() if v.best > 1}
                loop = self.loops[key] = _Loop(step.where, step.inner)
            loop.step(step.ops, step.outside, created, step.kind)  # (what the whole step built)

    def graphlint_graph_released(self, graph_id: int) -> None:
        self._judge(graph_id)
        self.ran.discard(graph_id)
        self.pending.pop(graph_id, None)
        self.last_run.pop(graph_id, None)

    def graphlint_run_finished(self) -> None:
        for graph_id in {key[0] for key in self.loops}:
            self._judge(graph_id)

    def _judge(self, graph_id: int) -> None:
        # One finding per line of the run loop.
        lines: dict[tuple[str, int], _Loop] = {}
        for key in [k for k in self.loops if k[0] == graph_id]:
            loop = self.loops.pop(key)
            if loop.best < self.config["min-repeats"]:
                continue
            other = lines.get(loop.where[:2])
            if other is None or loop.best > other.best:
                lines[loop.where[:2]] = loop
        for loop in lines.values():
            inner = loop.inner
            related = [] if inner[:2] == loop.where[:2] else [(inner, f"ops built here, in `{inner.function}()`")]
            self.report(
                f"ops are added to the graph here inside the run loop: {loop.ops} new ops over "
                f"{loop.best} steps after the session first ran the graph",
                loop.where,
                related=related,
            )
