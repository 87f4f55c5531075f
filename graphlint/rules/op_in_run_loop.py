"""GL102 op-in-run-loop."""

from __future__ import annotations

from collections import defaultdict

from graphlint.findings import Severity
from graphlint.rules._base import Rule
from graphlint.static.hits import report_hits
from graphlint.static.loops import op_in_run_loop


class OpInRunLoop(Rule):
    """Ops created inside the loop that runs the session.

    ## What it does
    Reports a line that adds ops to a graph again and again after a session has started running
    it — in more than `min-repeats` separate steps — such as `sess.run(tf.compat.v1.assign(v,
    v + 1))` or `x = x + 1` inside the training loop. One addition after training (a single
    `Saver()`) is fine.

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
        self.pending: dict[int, dict] = defaultdict(dict)  # graph -> {site key: site}
        self.steps: dict[tuple, list] = {}  # (graph, site key) -> [site, steps, ops]
        self.ops: dict[tuple, int] = defaultdict(int)

    def graphlint_op_added(self, graph_id, graph_kind, site):
        if graph_id not in self.ran or graph_kind != "graph" or site is None:
            return
        key = (graph_id, site[:2])
        self.pending[graph_id][key] = site
        self.ops[key] += 1

    def graphlint_session_run(self, graph_id, ops_added):
        self.ran.add(graph_id)
        pending = self.pending.pop(graph_id, None)
        if not pending or not ops_added:
            return
        for key, site in pending.items():
            entry = self.steps.setdefault(key, [site, 0])
            entry[1] += 1

    def graphlint_graph_released(self, graph_id):
        self._judge(graph_id)
        self.ran.discard(graph_id)
        self.pending.pop(graph_id, None)
        for key in [k for k in self.ops if k[0] == graph_id]:
            del self.ops[key]  # ops counted at lines that never repeated a step

    def graphlint_run_finished(self):
        for graph_id in {key[0] for key in self.steps}:
            self._judge(graph_id)

    def _judge(self, graph_id):
        for key in [k for k in self.steps if k[0] == graph_id]:
            site, steps = self.steps.pop(key)
            ops = self.ops.pop(key, 0)
            if steps >= self.config["min-repeats"]:
                self.report(
                    f"ops are added to the graph here inside the run loop: {ops} new ops over "
                    f"{steps} steps after the session first ran the graph",
                    site,
                )
