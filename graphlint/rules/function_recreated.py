"""GL502 function-recreated."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule
from graphlint.static.tfapi import TF_FUNCTION


class FunctionRecreated(Rule):
    """`tf.function(...)` applied inside a loop or on every call.

    ## What it does
    Flags `tf.function` applied — as a call or as the decorator of a nested `def` — inside a
    loop, or inside a function that runs again and again: a per-call method (`predict`,
    `__call__`, ...) or a function called in a loop.

    ## Why is this bad?
    Every `tf.function(...)` makes a new function object with an empty trace cache. Calling it
    traces the Python code into a graph again — often far slower than the computation itself —
    and keeps every trace alive. TensorFlow warns about "excessive retracing" only sometimes.

    ## Example
    ```python
    def predict(model, x):
        fast = tf.function(model)  # a new function, and a new trace, per call
        return fast(x)
    ```

    ## Use instead
    ```python
    fast_model = tf.function(model)  # once

    def predict(x):
        return fast_model(x)
    ```
    """

    code = "GL502"
    name = "function-recreated"
    severity = Severity.WARNING
    summary = "`tf.function` applied inside a loop or on every call"
    fix = (
        "Apply tf.function once — at module level, in __init__, or as the decorator of a method "
        "— and call the resulting function in the loop."
    )
    engines = ("static",)

    def check_module(self, module) -> None:
        for call in module.calls_named(TF_FUNCTION):
            what = "`@tf.function` on a nested def" if call.decorator else "`tf.function(...)`"
            if call.loops:
                self.report(
                    f"{what} inside a loop: a new function, traced again, on every iteration",
                    module.location(call.node),
                )
            elif call.scope is not None:
                reason = module.per_call(call.scope)
                if reason is not None:
                    related = [(module.location(reason.site.node), "called here")] if reason.site else []
                    self.report(
                        f"{what} in {call.scope.display}, which {reason.text}: a new function, "
                        "traced again, on every call",
                        module.location(call.node),
                        related=related,
                    )
