"""GL501 function-retraced."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class FunctionRetraced(Rule):
    """A `tf.function` traced again and again, with the argument that changed.

    ## What it does
    Checks for a `tf.function`, `jax.jit` or `torch.compile` function traced more than
    `max-traces` times, naming the retracing call, the definition and what changed: a Python
    value (`lr: float 0.1 → 0.05 → …`), a shape, a dtype, a new object, dynamo's failed guard. A
    torch frame past dynamo's recompile limit is an error. `graphlint check` finds calls in a loop
    passing a value that changes per iteration, or changing a compiled module's `int` attribute.

    ## Why is this bad?
    `tf.function` runs the Python code once per *trace* to build a graph, then reuses that
    graph for every call whose arguments look the same: same tensor shapes and dtypes, equal
    Python values, the same Python objects. Any other call traces the function again, which is
    usually far slower than running it, and keeps one more graph alive. TensorFlow's own
    warning only says that retracing happened and lists three guesses.

    `torch.compile`'s dynamo guards each compiled frame on what it assumed (a shape under
    `dynamic=False`, a Python number, an `int` attribute of an `nn.Module`, a global, a dtype or
    `requires_grad`) and compiles the frame again when a guard fails. After
    `torch._dynamo.config.recompile_limit` compiles it gives up on the frame, which then runs
    uncompiled for the rest of the program, with one warning.

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
    For `jax.jit`, JAX's fix for each cause: pad or bucket shapes, make a static argument traced
    or keep its values few, pass arrays of one dtype.
    For `torch.compile`, the fix for the cause: a 0-d tensor for a changing scalar,
    `torch._dynamo.mark_dynamic` (or `dynamic=None`) for shapes, a tensor buffer (or
    `torch._dynamo.config.allow_unspec_int_on_nn_module = True`) for a step counter:
    ```python
    class Warmup(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("step", torch.zeros((), dtype=torch.long))  # not self.step = 0

        def forward(self, x):
            self.step += 1
            return x * torch.clamp(self.step / 10, max=1.0)
    ```

    ## Known exemptions
    - Traces that only combine a few fixed values: flags of at most two values, or dtypes and
      shapes each coming back in later traces (a test that runs every dtype with every shape).
    - Statically: loops over no more values than `max-traces`, flags, tensors, an
      `input_signature`, a call under `if i == n - 1:`, and loops that run only while another
      `tf.function` is traced.
    - Statically for `torch.compile`: what torch 2.13 compiles only twice (a new shape or number
      under the default `dynamic=None`: automatic dynamic shapes), a `float` attribute (2
      compiles when `forward` computes with it, one per value when it only counts), an
      argument marked with `torch._dynamo.mark_dynamic` in the loop, a counter in a tensor buffer
      or changed only under an `if` (`if self.training:`), a file that sets
      `allow_unspec_int_on_nn_module`, and a compile that is not certain from the source (under
      a flag, of a parameter, of `self.model`).
    """

    code = "GL501"
    repetition = True
    name = "function-retraced"
    severity = Severity.WARNING
    summary = (
        "a `tf.function`, `jax.jit` or `torch.compile` function traced (compiled) more times than the limit, "
        "naming the argument that changed"
    )
    fix = (
        "Pass tensors instead of Python numbers or objects, and give tf.function an "
        "input_signature with None for the dimensions that vary (or reduce_retracing=True)."
    )
    frameworks = ("tensorflow", "jax", "torch")
    options = {"max-traces": 5}
