"""GL506 graph-break."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class GraphBreak(Rule):
    """A `torch.compile`d function split into several graphs at a line dynamo cannot trace.

    ## What it does
    Reports each line of your code where torch.compile's dynamo stopped its graph (a *graph
    break*), with dynamo's reason and how many compiles broke there: `print`, `.item()`,
    `.tolist()`, an `if` on a tensor's value, a call dynamo cannot trace. A graph break inside a
    loop makes dynamo skip the whole frame: that function runs eagerly, uncompiled, and the
    finding is an error. `graphlint check` finds the same lines in a def that `torch.compile`
    certainly compiles, and in the helpers it calls.

    ## Why is this bad?
    At a graph break dynamo compiles the code before it as one graph, runs the line in Python,
    and compiles the rest as another graph (a *resume function*, with guards and recompiles of
    its own). Each break costs a round trip to Python and stops the compiler from fusing across
    it; `TORCH_LOGS=graph_breaks` and `torch._dynamo.explain()` list them, a normal run says
    nothing.

    ## Example
    ```python
    @torch.compile
    def step(x):
        y = x.sin()
        print("mean", y.mean())  # a graph break
        return y * 2
    ```

    ## Use instead
    ```python
    @torch.compile
    def step(x):
        return x.sin() * 2

    y = step(x)
    print("mean", y.mean())  # after the compiled call
    ```

    ## Known exemptions
    - Breaks you asked for: `torch._dynamo.graph_break()`, a function under
      `torch.compiler.disable`.
    - Statically: what does not break the graph in torch 2.13 (`.numpy()`, `assert` on a tensor,
      an `if` on a shape or a flag); code that may not run (under an `if`, in an `except` part,
      after a `return`, in a nested def) or in a `with` block of a context manager not torch's;
      a compile that is not certain (under a flag, of a parameter);
      `fullgraph=True` (torch raises at the break itself); and `print`, `.item()`/`.tolist()` or
      logging calls once the file sets `reorderable_logging_functions`, `capture_scalar_outputs`
      or `ignore_logging_functions`.
    """

    code = "GL506"
    name = "graph-break"
    severity = Severity.WARNING
    summary = "a `torch.compile`d function split into several graphs (or run eagerly) at a line dynamo cannot trace"
    fix = "Move what dynamo cannot trace out of the compiled function, into the code that calls it."
    frameworks = ("torch",)
    static_words = ("torch",)
