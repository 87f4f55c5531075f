"""GL501 function-retraced."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules.function_retraced.runtime import Runtime


class FunctionRetraced(Runtime):
    """A `tf.function` traced again and again, with the argument that changed.

    ## What it does
    Counts the traces of every `tf.function` (decorated functions and methods, `tf.function(f)`,
    Keras' own train/predict functions) and, when one is traced more than `max-traces` times,
    names the call that retraces, the function's definition and, for each argument that changed
    between traces, what changed: a Python value (`lr: float 0.1 → 0.05 → …`), a tensor shape
    (`x: (3, 4) → (5, 4)`), a dtype, or a new Python object on every call. Traces that only
    combine a few fixed values — flags of at most two values, or tensors' dtypes and shapes that
    change in two or more ways, each value coming back in later traces, as a test that runs
    every dtype with every shape — stop when the combinations do: not reported.

    `graphlint check` finds the source-visible form before anything runs: a call of a
    `tf.function` (decorated, `tf.function(f)`, a decorated method through `self` or an
    instance, also one defined in your own module beside the file) in a loop, passing a Python
    value that changes on every iteration — the loop variable of `range`/`enumerate` or a number
    computed from it, a `+=` counter, a list that grows, a new object, an array whose shape
    follows the loop — also through a parameter of a function called in such a loop. Loops over
    no more values than `max-traces`, flags, tensors, an `input_signature`, a call under
    `if i == n - 1:` and loops that run only while another `tf.function` is traced stay silent.

    The same for the `jax.jit` functions your code makes, in JAX's terms: an array's shape, a
    static argument's value, a dtype, a Python scalar's weak type against an array, a pytree's
    structure — with JAX's fix for each (pad or bucket shapes, make a static argument traced
    or keep its values few, pass arrays of one dtype).

    ## Why is this bad?
    `tf.function` runs the Python code once per *trace* to build a graph, then reuses that
    graph for every call whose arguments look the same: same tensor shapes and dtypes, equal
    Python values, the same Python objects. Any other call traces the function again, which is
    usually far slower than running it, and keeps one more graph alive. TensorFlow's own
    warning only says that retracing happened and lists three guesses.

    ## Example
    ```python
    @tf.function
    def step(x, lr):
        return x - lr * x

    for epoch in range(10):
        step(batch, 0.1 / (epoch + 1))  # a Python float: a new trace per value
    ```

    ## Use instead
    ```python
    for epoch in range(10):
        step(batch, tf.constant(0.1 / (epoch + 1)))  # a tensor: one trace

    # varying shapes: declare the dimension that varies
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def predict(x): ...
    ```
    """

    code = "GL501"
    repetition = True
    name = "function-retraced"
    severity = Severity.WARNING
    summary = "a `tf.function` or `jax.jit` function traced more times than the limit, naming the argument that changed"
    fix = (
        "Pass tensors instead of Python numbers or objects, and give tf.function an "
        "input_signature with None for the dimensions that vary (or reduce_retracing=True)."
    )
    frameworks = ("tensorflow", "jax")
    options = {"max-traces": 5}
