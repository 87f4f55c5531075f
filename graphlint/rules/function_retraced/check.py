"""GL501's static form: a call of a ``tf.function`` in a loop that passes a Python value
changing on every iteration, so that every iteration traces the function again.

``tf.function`` keys its traces on Python values, on the identity of Python objects, on the
structure of lists and on tensor shapes. :func:`retraced_calls` finds calls of a tf.function
(decorated, ``tf.function(f)``, or a decorated method reached through ``self`` or an instance:
the model's :func:`~graphlint.static.model.tf_functions.callee`) inside a loop, with an
argument that takes a new such key on every iteration: the loop variable of
``range``/``enumerate`` or a number computed from it, a counter, a list that grows, a new
object, an array whose shape follows the loop (:mod:`.values`). A loop whose values are known
and no more than ``max-traces`` (the runtime rule's threshold) stays silent, and so does a
value made a tensor first, an ``input_signature``, and a loop that runs only while another
tf.function is traced. Nothing is imported or run.
"""

from __future__ import annotations

import ast
from typing import Any

from graphlint.rules.function_retraced.values import distinct_keys, values_around
from graphlint.static.hits import Hit
from graphlint.static.model.module import Module, spells
from graphlint.static.model.scopes import CallSite
from graphlint.static.model.repeats import isolated
from graphlint.static.model.tf_functions import TfFunction, callee, may_call_tf_function, traced_at_trace_time
from graphlint.static.model.tf_functions import params as tf_params
from graphlint.static.model.values import Var, assignments


def check(module: Module, options: dict[str, Any]) -> list[Hit]:
    hits = []
    for found in retraced_calls(module, options["max-traces"]):
        name = f"`{found.function.name}()`"
        causes = "; ".join(
            f"`{param}` is {var.what}" + (f" ({var.bound} values)" if var.bound else "")
            for param, _, var in found.causes
        )
        hits.append(
            Hit(
                found.node,
                f"{name} is traced again on every iteration of this loop: {causes}",
                tuple(found.related(module)),
                _static_fix(found),
            )
        )
    if not spells(module, "torch"):  # (the PyTorch form's own first test)
        return hits
    # imported for a file that names torch: with the torch model it needs, ~9M instructions
    from graphlint.rules.function_retraced.torch_compile import recompiled_calls

    return hits + recompiled_calls(module, options)


class Retrace:
    """One call that traces ``function`` again on every iteration of ``loop``."""

    node: ast.Call
    function: TfFunction
    loop: ast.AST | None
    causes: list[tuple[str, str, Var]]  # (param, source text, Var)
    caller: CallSite | None  # the call, in a loop, of the function around ``node`` that passes the value

    def __init__(self, node: ast.Call, function: TfFunction, loop: ast.AST | None,
                 causes: list[tuple[str, str, Var]] | None = None, caller: CallSite | None = None) -> None:
        self.node, self.function, self.loop = node, function, loop
        self.causes = [] if causes is None else causes
        self.caller = caller

    def related(self, module: Module) -> list:
        """(Location, text) of the definition, the calling line when the value comes from one, the loop."""
        name = f"`{self.function.name}()`"
        out = [((self.function.module or module).location(self.function.anchor), f"{name} is defined here")]
        if self.caller is not None and self.caller.target is not None:  # a caller of the function
            out.append((module.location(self.caller.node), f"{self.caller.target.display} is called here"))
        out.append((module.location(self.loop), "the loop"))
        return out


def retraced_calls(module: Module, max_traces: int) -> list[Retrace]:
    """Calls of a tf.function in a loop that pass a Python value changing per iteration."""
    out: list[Retrace] = []
    if not may_call_tf_function(module):
        return out
    for site in module.calls:
        if site.decorator or not isinstance(site.node, ast.Call):
            continue
        if not site.loops and (site.scope is None or not site.scope.callers):
            continue
        if not _may_vary(site, site.node):
            continue  # asked before the callee: finding it may read another module
        function = callee(module, site)
        if function is None or function.signature or traced_at_trace_time(module, site.scope):
            continue
        values = values_around(module, site) if site.loops else None
        found = Retrace(site.node, function, site.loops[-1].node if site.loops else None)
        args = [(function.params[i] if i < len(function.params) else f"argument {i + 1}", a)
                for i, a in enumerate(site.node.args) if not isinstance(a, ast.Starred)]
        args += [(k.arg, k.value) for k in site.node.keywords if k.arg]
        once = values.once_per_run(site) if values is not None else set()
        for param, arg in args:
            var = values.argument(arg) if values is not None else None
            if var is None and found.caller is None:
                var, found.caller = _from_caller(module, site, arg)
            if var is None or not var.varying or (var.kind == "shape" and function.relaxed) or var.loop in once:
                continue
            found.causes.append((param, ast.unparse(arg), var))
        keys = distinct_keys([var for _, _, var in found.causes])
        if not found.causes or (keys is not None and keys <= max_traces):
            continue
        main = [c for c in found.causes if c[2].bound is None or c[2].bound > 2] or found.causes
        found.causes = main
        found.loop = main[0][2].loop or found.loop
        out.append(found)
    return out


def _may_vary(site: CallSite, node: ast.Call) -> bool:
    """Whether the call ``node`` (the site's) passes an argument that can be a cause: any, in a
    loop; outside one, a parameter of the function around it (:func:`_from_caller`)."""
    if site.loops:
        return bool(node.args or node.keywords)
    if site.scope is None:  # outside a function: no parameter to pass on
        return False
    params = site.scope.params
    for arg in node.args:
        if type(arg) is ast.Name and arg.id in params:
            return True
    for kw in node.keywords:
        if kw.arg and type(kw.value) is ast.Name and kw.value.id in params:
            return True
    return False


def _from_caller(module: Module, site: CallSite, arg: ast.expr) -> tuple[Var | None, CallSite | None]:
    """``(Var, caller)`` when ``arg`` is a parameter of the function around the call, never
    rebound there, and a caller of that function passes it a value that changes in its loop."""
    fn = site.scope
    if fn is None or not isinstance(arg, ast.Name) or arg.id not in fn.params:
        return None, None
    if any(kind != "?" for kind, _ in assignments(module, fn).get(arg.id, ())):
        return None, None
    for caller in fn.callers:
        if not caller.loops or isolated(caller, module) or traced_at_trace_time(module, caller.scope):
            continue
        bound = fn.is_method and isinstance(caller.node.func, ast.Attribute)
        params = tf_params(fn, bound)
        expr = next((k.value for k in caller.node.keywords if k.arg == arg.id), None)
        if expr is None and arg.id in params and params.index(arg.id) < len(caller.node.args):
            expr = caller.node.args[params.index(arg.id)]
        if expr is None or isinstance(expr, ast.Starred):
            continue
        values = values_around(module, caller)
        var = values.argument(expr)
        if var is not None and var.varying and var.loop not in values.once_per_run(caller):
            return (var if var.loop is not None else var._replace(loop=caller.loops[-1].node)), caller
    return None, None


def _static_fix(found: Retrace) -> str:
    """The fix for each cause the source shows, in the runtime rule's words."""
    by_kind: dict[str, list] = {}
    for param, source, var in found.causes:
        by_kind.setdefault(var.kind, []).append((param, source))
    fixes = []
    for param, source in by_kind.get("value", []):
        fixes.append(
            f"Pass `{param}` as a tensor (`tf.constant({source})`), or give `{found.function.name}` an "
            "input_signature: every new value of a Python argument is a new trace."
        )
    if "length" in by_kind:
        names = ", ".join(f"`{p}`" for p, _ in by_kind["length"])
        fixes.append(
            f"Pass {names} as one tensor (`tf.stack(...)`) and declare its varying length as None in an "
            "input_signature: a list of another length is another structure, and another trace."
        )
    if "object" in by_kind:
        names = ", ".join(f"`{p}`" for p, _ in by_kind["object"])
        fixes.append(
            f"Create {names} once, outside the loop, and pass the same object, or pass the values it "
            "carries as tensors: tf.function tells Python objects apart by identity."
        )
    if "shape" in by_kind:
        names = ", ".join(f"`{p}`" for p, _ in by_kind["shape"])
        fixes.append(
            f"Declare the dimension of {names} that varies as None with input_signature=[tf.TensorSpec(...)], "
            "or use reduce_retracing=True."
        )
    return " ".join(fixes)
