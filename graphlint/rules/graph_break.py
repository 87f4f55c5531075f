"""GL506 graph-break."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphlint.findings import Severity
from graphlint.rules import _torch
from graphlint.rules._base import Rule
from graphlint.text import plural


@dataclass(slots=True)
class _Break:
    site: object
    name: str
    reason: str
    explanation: str
    hints: tuple
    count: int = 0
    skipped: bool = False
    calls: list = field(default_factory=list)  # the user's lines that called the compiled code


class GraphBreak(Rule):
    """A `torch.compile`d function split into several graphs at a line dynamo cannot trace.

    ## What it does
    Reports each line of your code where torch.compile's dynamo stopped its graph (a *graph
    break*), with dynamo's reason and how many compiles broke there: `print`, `.item()`,
    `.tolist()`, an `if` on a tensor's value, a call dynamo cannot trace. A graph break inside a
    loop makes dynamo skip the whole frame: that function runs eagerly, uncompiled, and the
    finding is an error. Breaks you asked for (`torch._dynamo.graph_break()`, a function under
    `torch.compiler.disable`) are not reported.

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
    """

    code = "GL506"
    name = "graph-break"
    severity = Severity.WARNING
    summary = "a `torch.compile`d function split into several graphs (or run eagerly) at a line dynamo cannot trace"
    fix = "Move what dynamo cannot trace out of the compiled function, into the code that calls it."
    engines = ("runtime",)
    frameworks = ("torch",)

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.breaks: dict[tuple, _Break] = {}  # (path, line) -> the breaks there

    def graphlint_graph_break(self, name, site, call_site, reason, explanation, hints, skipped):
        if site is None or any(word in f"{reason} {explanation}" for word in _torch.INTENTIONAL):
            return
        entry = self.breaks.get(site[:2])
        if entry is None:
            entry = self.breaks[site[:2]] = _Break(site, name, reason, explanation, tuple(hints))
        entry.count += 1
        entry.skipped = entry.skipped or skipped
        if call_site is not None and call_site[:2] != site[:2] and call_site[:2] not in {c[:2] for c in entry.calls}:
            entry.calls.append(call_site)

    def graphlint_run_finished(self):
        for entry in self.breaks.values():
            said = _torch.break_said(entry.reason, entry.explanation)
            if entry.skipped:
                message = (
                    f"graph break in a loop of `{entry.name}()`: {said}; dynamo skips the whole frame, which runs "
                    f"eagerly (uncompiled) ({plural(entry.count, 'compile')} broke here)"
                )
            else:
                message = (
                    f"graph break in `{entry.name}()`: {said}; the compiled code is split here into two graphs, "
                    f"with a round trip to Python between them ({plural(entry.count, 'compile')} broke here)"
                )
            related = [(where, "the compiled call that broke there") for where in entry.calls[:2]]
            self.report(
                message,
                entry.site,
                related=related,
                fix=_torch.break_fix(entry.reason, entry.explanation, entry.hints),
                severity=Severity.ERROR if entry.skipped else None,
            )
        self.breaks.clear()
