"""GL301 session-churn."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class SessionChurn(Rule):
    """Sessions created again and again.

    ## What it does
    Checks for sessions created over and over: more than `max-per-site` from one line (a new
    session per call of `predict()`), or more than `max-per-graph` for one graph.

    ## Why is this bad?
    Creating a `Session` starts a runtime, allocates devices and thread pools, and throws away
    every subgraph it pruned and cached; variables must be initialized or restored again. A
    session per call turns a microsecond `run` into milliseconds, and unclosed ones hold their
    memory.

    ## Example
    ```python
    def predict(x):
        with tf.compat.v1.Session() as sess:
            sess.run(init)
            return sess.run(y, {inputs: x})
    ```

    ## Use instead
    ```python
    class Predictor:
        def __init__(self):
            self.sess = tf.compat.v1.Session(graph=graph)  # once
            self.sess.run(init)

        def predict(self, x):
            return self.sess.run(y, {inputs: x})
    ```

    ## Known exemptions
    A sweep: one session per fresh graph that does a whole run (a training or an evaluation),
    at runtime a session that ran at least 10 times, statically a pass or a function with a
    loop of runs of its own (or that hands its session to a function that may); a fresh graph
    rebuilt, initialised or restored for a few runs per pass or per call is reported.
    At runtime also a session that never runs (a test of `get_session()` after
    `clear_session()`), and one session per fresh graph that holds its own values: a line's
    sessions count when one runs again what an earlier one from that line ran on the same
    graph, or feeds inputs. Statically: get-or-create (`if sess is None:`,
    `tf.get_default_session() or ...`), a session per object kept on that object or in a
    collection, a graph per instance (`__init__`), and loops the source bounds to
    `max-per-site` passes.
    """

    code = "GL301"
    repetition = True
    name = "session-churn"
    severity = Severity.WARNING
    frameworks = ("tensorflow-v1",)
    summary = "sessions created again and again"
    fix = (
        "Create one Session per graph (e.g. in __init__), keep it, and call run() on it; "
        "close it once at the end."
    )
    options = {"max-per-site": 2, "max-per-graph": 2}
