"""GL102 op-in-run-loop."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules.op_in_run_loop.runtime import Runtime


class OpInRunLoop(Runtime):
    """Ops created inside the loop that runs the session.

    ## What it does
    Reports a line that adds ops to a graph again and again after a session has started running
    it — in at least `min-repeats` separate steps — such as `sess.run(tf.compat.v1.assign(v,
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
    repetition = True
    name = "op-in-run-loop"
    severity = Severity.WARNING
    frameworks = ("tensorflow-v1",)
    summary = "ops added to the graph at every step of the run loop"
    fix = (
        "Build the op once before the loop and only run it inside; call graph.finalize() "
        "after building so that any op created later raises."
    )
    options = {"min-repeats": 3}
