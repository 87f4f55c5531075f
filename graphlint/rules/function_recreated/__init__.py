"""GL502 function-recreated."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class FunctionRecreated(Rule):
    """`tf.function(...)` applied inside a loop or on every call.

    ## What it does
    Checks for `tf.function`, `jax.jit`, `torch.compile`, `torch.jit.trace`/`script` or
    `torch.export` applied — as a call or as the decorator of a nested `def` — inside a loop,
    or inside a function that runs again and again: a per-call method (`predict`, `__call__`,
    ...) or a function called in a loop. At runtime it reports a line that made more than
    `max-per-site` functions of one wrapped function (for PyTorch: of one function or
    `nn.Module`), each traced.

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

    ## Known exemptions
    - At runtime: functions that Keras makes, the per-instance copies of a decorated method and
      those an `__init__` makes for its object, one function per object that a method makes it
      for (four models, each with its `make_train_function()`), functions made while another `tf.function` is
      traced, and functions only traced by `get_concrete_function` (never called).
    - For PyTorch: a new module object each time (a sweep that compiles each new model once)
      and a compile in `__init__`; statically also a target the loop or function makes itself
      (`net = Net(cfg)`), the loop's own items and a parameter (its object is not known).
    - Statically: a function made behind a first-time guard (`if self._fn is None:`), in a
      memoized function, over a loop's own distinct functions, in a loop of no more literal
      passes than `max-per-site`, or in a loop that runs only while another `tf.function` is
      traced.
    - For JAX: `jax.jit(f)` of a function defined once at module level or imported (`jnp.sum`):
      the same function object every time, which JAX's compile cache finds (nothing is traced
      again). A lambda, a nested `def` or a `partial(...)` is a new object and is reported.
    """

    code = "GL502"
    repetition = True
    name = "function-recreated"
    severity = Severity.WARNING
    summary = "`tf.function`, `jax.jit`, `torch.compile` or `torch.jit.trace` applied inside a loop or on every call"
    fix = (
        "Apply tf.function once — at module level, in __init__, or as the decorator of a method "
        "— and call the resulting function in the loop."
    )
    frameworks = ("tensorflow", "jax", "torch")
    options = {"max-per-site": 2}
