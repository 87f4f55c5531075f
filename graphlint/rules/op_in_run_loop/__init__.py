"""GL102 op-in-run-loop."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class OpInRunLoop(Rule):
    """Ops created inside the loop that runs the session.

    ## What it does
    Checks for a line that adds ops to a graph again and again while a session runs it, in at
    least `min-repeats` steps: `sess.run(tf.compat.v1.assign(v, v + 1))` or `x = x + 1` inside
    the training loop, or a call of your own function that builds ops there.

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

    ## Known exemptions
    - One addition after training (a single `Saver()`), and a test that builds and evaluates a
      handful of times from different lines.
    - A function that builds and runs per call (that is GL101).
    - At runtime, steps that build other ops or other shapes each time (a test's loop over
      configurations).
    - Ops under the iteration's own `as_default()` graph or a first-time guard inside the loop
      (`if op is None: op = ...`; an `if x is None:` whose `x` nothing ever sets is a mode
      switch that runs at every step, and an `if` around the whole loop guards nothing the
      loop repeats), `get_variable` under `reuse=True` (no op), and a loop over the model's own
      variables (a weight load, its placeholder per variable included, or an inspection: one
      op per variable; a function that repeats the whole walk is GL101's).
    - Statically, loops the source says run fewer than `min-repeats` times, and a loop that runs
      a whole training of its own per pass (a sweep, not a run loop), or starts each pass from
      a fresh graph (`reset_default_graph()`, directly or through a helper or a constructor of
      the file or of another module of the tree). Under a graph made outside the loop
      (`with tf.Graph().as_default():` around it), only the ops built alike at every pass are
      reported (a `Saver()` per checkpoint): ops built from the pass's own values are a sweep
      over cases.
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
