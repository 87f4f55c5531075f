"""GL502 function-recreated."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules.function_recreated.runtime import Runtime


class FunctionRecreated(Runtime):
    """`tf.function(...)` applied inside a loop or on every call.

    ## What it does
    Flags `tf.function` applied — as a call or as the decorator of a nested `def` — inside a
    loop, or inside a function that runs again and again: a per-call method (`predict`,
    `__call__`, ...) or a function called in a loop. At runtime (`graphlint run`), it reports
    a line of your code that made more than `max-per-site` `tf.function`s of the same wrapped
    function (a line that wraps distinct functions once each compiles each of them once), each
    traced for a call, with the count (functions that Keras makes, the per-instance copies of a
    decorated method and the functions an `__init__` makes for its object, functions made while another `tf.function` is traced, and functions only
    traced by `get_concrete_function` — for their output signature or graph, as shape inference
    and exports do, never called — are not counted). The same for `jax.jit` — `jax.jit(f)`,
    `jax.jit(lambda ...)`, `@jax.jit`/`@partial(jax.jit, ...)` on a nested def, `jax.jit` inside
    `jax.vmap(...)` — at runtime (distinct jitted functions made at one line, each traced) and
    statically.

    Statically, a function of your own module beside the file that applies `tf.function` on
    every call is reported at the line that calls it in a loop or per call. A `tf.function` made
    behind a first-time guard (`if self._fn is None:`), in a memoized function, over a loop's
    own distinct functions, in a loop of no more literal iterations than `max-per-site`, or in a
    loop that runs only while another `tf.function` is traced is made once: not reported.

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
    repetition = True
    name = "function-recreated"
    severity = Severity.WARNING
    summary = "`tf.function` or `jax.jit` applied inside a loop or on every call"
    fix = (
        "Apply tf.function once — at module level, in __init__, or as the decorator of a method "
        "— and call the resulting function in the loop."
    )
    frameworks = ("tensorflow", "jax")
    options = {"max-per-site": 2}
