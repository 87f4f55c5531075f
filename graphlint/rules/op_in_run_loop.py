"""GL102 op-in-run-loop."""

from __future__ import annotations

from collections import defaultdict

from graphlint.findings import Severity
from graphlint.rules._base import Rule
from graphlint.sites import capture
from graphlint.static.hits import report_hits
from graphlint.static.loops import op_in_run_loop


class OpInRunLoop(Rule):
    """Ops created inside the loop that runs the session.

    ## What it does
    Reports a line that adds ops to a graph again and again after a session has started running
    it — in more than `min-repeats` separate steps — such as `sess.run(tf.compat.v1.assign(v,
    v + 1))` or `x = x + 1` inside the training loop: the same call path, in the same run loop
    (the invocation that runs the session and builds the ops), step after step. One addition
    after training (a single `Saver()`) is fine, and so is a test that builds and evaluates a
    handful of times from different lines; a function that builds and runs per call is GL101.

    ## Why is this bad?
    Every step adds new nodes: the graph, and the memory it holds, grow without bound; each run
    must first ship the new nodes to the runtime and prune and cache a new subgraph, so steps
    get slower over time. The graph can never be finalized.

    ## Example
    ```python
    for step in range(1000):
        sess.run(tf.compat.v1.assign(v, v + 1))  # two new ops per step
    ```

    ## Use instead
    ```python
    increment = tf.compat.v1.assign(v, v + 1)  # built once
    tf.compat.v1.get_default_graph().finalize()  # any later op creation now raises
    for step in range(1000):
        sess.run(increment)
    ```
    """

    code = "GL102"
    name = "op-in-run-loop"
    severity = Severity.WARNING
    summary = "ops added to the graph at every step of the run loop"
    fix = (
        "Build the op once before the loop and only run it inside; call graph.finalize() "
        "after building so that any op created later raises."
    )
    options = {"min-repeats": 3}
    engines = ("runtime", "static")

    def check_module(self, module):
        """Static form: see :func:`graphlint.static.loops.op_in_run_loop`."""
        report_hits(self, module, op_in_run_loop(module, self.config))

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.ran: set[int] = set()
        # graph -> {site key: [the first op's stack there since the last run, ops]}
        self.pending: dict[int, dict] = defaultdict(dict)
        # (graph, run-loop invocation, the op's call path) -> [site, steps, ops]
        self.steps: dict[tuple, list] = {}

    def graphlint_op_added(self, graph_id, graph_kind, site, stack):
        if graph_id not in self.ran or graph_kind != "graph" or site is None:
            return
        pending = self.pending[graph_id]
        entry = pending.get(site[:2])
        if entry is None:
            pending[site[:2]] = [stack, 1]  # kept: the probe hands over the whole stack
        else:
            entry[1] += 1

    def graphlint_session_run(self, graph_id, ops_added):
        self.ran.add(graph_id)
        pending = self.pending.pop(graph_id, None)
        if not pending or not ops_added:
            return
        run = capture(0).calls  # the user's invocations running the graph now
        for stack, ops in pending.values():
            calls = stack.calls
            common = 0
            for built, running in zip(calls, run):
                if built != running:
                    break
                common += 1
            if not common:
                continue  # built in another thread's code: not this loop's step
            # The innermost invocation that both built these ops and ran the graph: a run loop
            # keeps it from step to step. A function that builds and runs per call is a new
            # invocation each time (GL101's case, not a loop's).
            key = (graph_id, calls[common - 1], tuple(f[:2] for f in stack.frames))
            entry = self.steps.get(key)
            where = stack.frames[common - 1]  # the run loop's line that builds (maybe via calls)
            if entry is None:
                if len(self.steps) >= _MAX_KEYS:  # bounded: forget what has not repeated
                    limit = self.config["min-repeats"]
                    self.steps = {k: v for k, v in self.steps.items() if v[1] >= limit - 1}
                entry = self.steps[key] = [where, 0, 0, stack.site]
            entry[1] += 1
            entry[2] += ops

    def graphlint_graph_released(self, graph_id):
        self._judge(graph_id)
        self.ran.discard(graph_id)
        self.pending.pop(graph_id, None)

    def graphlint_run_finished(self):
        for graph_id in {key[0] for key in self.steps}:
            self._judge(graph_id)

    def _judge(self, graph_id):
        # One finding per line of the run loop: the steps of its longest path, all its ops.
        lines: dict[tuple, list] = {}
        for key in [k for k in self.steps if k[0] == graph_id]:
            where, steps, ops, inner = self.steps.pop(key)
            if steps < self.config["min-repeats"]:
                continue
            entry = lines.get(where[:2])
            if entry is None:
                lines[where[:2]] = [where, steps, ops, inner]
            else:
                entry[2] += ops
                if steps > entry[1]:
                    entry[1], entry[3] = steps, inner
        for where, steps, ops, inner in lines.values():
            related = [] if inner[:2] == where[:2] else [(inner, f"ops built here, in `{inner.function}()`")]
            self.report(
                f"ops are added to the graph here inside the run loop: {ops} new ops over "
                f"{steps} steps after the session first ran the graph",
                where,
                related=related,
            )


_MAX_KEYS = 20_000
