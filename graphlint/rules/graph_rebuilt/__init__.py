"""GL101 graph-rebuilt."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class GraphRebuilt(Rule):
    """The same code builds its ops into the same graph more than once.

    ## What it does
    Checks for a function that builds a model into the default graph and runs it, and is called
    again: a per-call `forecast()`, `predict()` or `__call__`, or a call in a loop. It reports
    where the repeated build starts, how many copies there are and the graph's size after each
    (`14 → 28 → 42 ops`).

    ## Why is this bad?
    In TF1-style code there is one global default graph. A model built inside `forecast()`,
    `predict()` or `__call__` adds another copy of itself on every call: the graph grows without
    end, every call pays for op creation and a new pruned subgraph, and the second call may die
    with `Variable weight_def/weights already exists, disallowed`. Sharing the variables
    (`reuse=True`, `AUTO_REUSE`, a `try/except` reuse) still copies every op; `with tf.Graph():`
    does not help either (GL103).

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

    ## Known exemptions
    - A copy that makes no placeholder (ops only, or ops over fresh variables) counts when the
      calls come again and again from one line (a loop) and each applies the same tensors again,
      not when they come from several lines (a layer helper, `bijector.forward(x)` then
      `forward(y)`).
    - At runtime, copies that compute something else: other op types (a check helper called with
      another op per case), or another model's weights and inputs (several models, each fitted
      once).
    - Towers built before any run, and ops built inline in a loop (that is GL102).
    - A function that builds under its own `tf.Graph().as_default()`, resets the default graph
      (itself, or through a helper or constructor of the file; a loop also through one of
      another module of the tree),
      is decorated with `@tf.function`, or runs once per object (`__init__`, `build`); a call
      behind a first-time guard (`if self.model is None:`).
    - Statically, a loop the source bounds to one pass; models kept side by side (an ensemble).
    - The target of a `multiprocessing.Process` started in a loop (an A3C's worker processes):
      each process has its own default graph and builds its copy once.
    """

    code = "GL101"
    repetition = True
    name = "graph-rebuilt"
    severity = Severity.WARNING
    frameworks = ("tensorflow-v1",)
    summary = "the same code builds its ops into the same graph more than once"
    fix = (
        "Build the model once (in __init__ or before the loop, under its own "
        "`tf.Graph().as_default()`), keep its tensors, and only run them per call; "
        "`graph.finalize()` turns any later rebuild into an error."
    )
