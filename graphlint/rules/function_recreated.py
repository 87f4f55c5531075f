"""GL502 function-recreated."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graphlint.findings import Severity
from graphlint.rules import _jax, _torch
from graphlint.rules._base import Rule

if TYPE_CHECKING:  # the runtime engine's: `graphlint check` never imports it
    from graphlint.stacks import Frame


@dataclass(slots=True)
class _Site:
    """The functions made at one line, and how often they were traced."""

    site: Frame  # the line
    definition: Frame | None  # where the wrapped function is defined
    framework: str  # "tensorflow" or "jax"
    functions: int = 0
    traces: int = 0
    wrapped: dict = field(default_factory=dict)  # the wrapped function (def line or name) -> functions


class FunctionRecreated(Rule):
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
    statically. And at runtime for PyTorch: a line that applies `torch.compile`,
    `torch.jit.trace`/`trace_module`, `torch.jit.script` or `torch.export.export` more than
    `max-per-site` times to the same function (its code: a lambda or nested `def` made afresh
    counts as the same) or the same `nn.Module` object; a new module object each time (a sweep
    that compiles each new model once) and a compile in `__init__` are not counted.

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
    summary = "`tf.function`, `jax.jit`, `torch.compile` or `torch.jit.trace` applied inside a loop or on every call"
    fix = (
        "Apply tf.function once — at module level, in __init__, or as the decorator of a method "
        "— and call the resulting function in the loop."
    )
    engines = ("runtime", "static")
    frameworks = ("tensorflow", "jax", "torch")
    options = {"max-per-site": 2}

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.created: dict[int, tuple] = {}  # function id -> (site, definition, framework, wrapped)
        self.called: set[int] = set()  # functions traced for a call
        self.ahead: dict[int, int] = {}  # function id -> traces for get_concrete_function alone
        self.sites: dict[tuple, _Site] = {}  # (path, line) -> what was made there
        self.torch_made: dict[tuple, _torch.Made] = {}  # ((path, line), api) -> targets made there

    # -- runtime form ----------------------------------------------------------------------
    def graphlint_function_created(self, function_id, name, definition_site, site, by_user, framework, api, target):
        # Made in __init__: the new object's own function, as a decorated method's per-instance copy.
        if framework == "torch":  # counted as made: torch.compile compiles on a call, jit and export at once
            if api is not None and target is not None and by_user and site is not None and site.function != "__init__":
                _torch.made(self.torch_made, site, definition_site, name, api, target)
            return
        if by_user and site is not None and site.function != "__init__":
            wrapped = definition_site[:2] if definition_site is not None else name
            self.created[function_id] = (site, definition_site, framework, wrapped)

    def graphlint_function_traced(self, function_id, ahead_of_time):
        made = self.created.get(function_id)
        if made is None:
            return
        if ahead_of_time:  # traced for its graph or output signature only (get_concrete_function)
            self.ahead[function_id] = self.ahead.get(function_id, 0) + 1
            return
        site, definition, framework, wrapped = made
        entry = self.sites.get(site[:2])
        if entry is None:
            entry = self.sites[site[:2]] = _Site(site, definition, framework)
        entry.traces += 1
        if function_id not in self.called:  # its first trace for a call: a new function at work
            self.called.add(function_id)
            entry.functions += 1
            entry.traces += self.ahead.pop(function_id, 0)
            entry.wrapped[wrapped] = entry.wrapped.get(wrapped, 0) + 1

    def graphlint_function_released(self, function_id):
        self.created.pop(function_id, None)
        self.called.discard(function_id)
        self.ahead.pop(function_id, None)

    def graphlint_run_finished(self):
        limit = self.config["max-per-site"]
        for entry in self.sites.values():
            site, definition, functions = entry.site, entry.definition, entry.functions
            # The same function wrapped again and again; a line that wraps distinct functions
            # once each (a list of functions compiled in a comprehension, a helper called with
            # different functions) compiles each of them once.
            if functions > limit and max(entry.wrapped.values()) > limit:
                related = [(definition, "the function it wraps is defined here")] if definition else []
                if definition is not None and definition[:2] == site[:2]:
                    related = []  # a lambda: defined on the line that wraps it
                jax = entry.framework == "jax"
                self.report(
                    f"`{'jax.jit' if jax else 'tf.function'}` made {functions} new functions at this line, "
                    f"each traced afresh ({entry.traces} traces in all)",
                    site,
                    related=related,
                    fix=_jax.RECREATED_FIX if jax else None,
                )
        for entry in self.torch_made.values():
            found = _torch.remade(entry, limit)
            if found is not None:
                defined = entry.definition
                related = [(defined, f"`{defined.function}()` is defined here")] if defined is not None else []
                if entry.definition is not None and entry.definition[:2] == entry.site[:2]:
                    related = []  # a lambda: defined on the line that compiles it
                self.report(found[0], entry.site, related=related, fix=found[1])
        self.torch_made.clear()
        self.sites.clear()
        self.created.clear()
        self.called.clear()
        self.ahead.clear()

    # -- static form -----------------------------------------------------------------------

    def check_module(self, module) -> None:
        """Static form: see :func:`graphlint.static.recreation.recreated_functions`."""
        from graphlint.static.hits import report_hits
        from graphlint.static.jax_jit import jit_recreated
        from graphlint.static.recreation import recreated_functions, report

        report(self, module, recreated_functions(module, self.config))
        report_hits(self, module, jit_recreated(module), fix=_jax.RECREATED_FIX)  # the JAX form: jax.jit
