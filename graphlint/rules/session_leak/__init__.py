"""GL303 session-leak."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class SessionLeak(Rule):
    """Sessions opened and abandoned without `close()`.

    ## What it does
    Checks for a session the program dropped without closing while it went on running, and for
    unclosed sessions piling up on one graph (more than `max-open-per-graph` at once).

    ## Why is this bad?
    An open session holds its device memory, thread pools and the values of every variable.
    Relying on garbage collection to free them makes memory grow with each call that opened one,
    and a reference cycle can keep them alive for a long time.

    ## Example
    ```python
    def evaluate(x):
        sess = tf.compat.v1.Session()
        return sess.run(y, {inputs: x})  # the session is dropped, never closed
    ```

    ## Use instead
    ```python
    def evaluate(x):
        with tf.compat.v1.Session() as sess:
            return sess.run(y, {inputs: x})
    ```
    or one long-lived session closed at the end.

    ## Known exemptions
    One session held until the program ends: a global, or a local of `main()` collected as
    `main()` returns.
    """

    code = "GL303"
    name = "session-leak"
    severity = Severity.WARNING
    frameworks = ("tensorflow-v1",)
    summary = "session dropped or piled up without close()"
    fix = (
        "Use `with tf.compat.v1.Session() as sess:` or call sess.close() when done; better, "
        "keep one session for the program's life."
    )
    options = {"max-open-per-graph": 2}
