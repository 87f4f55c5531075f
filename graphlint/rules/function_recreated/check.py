"""GL502's static form: ``tf.function`` made again and again — applied in a loop, or in a
function that runs again and again (called in a loop, from a per-call method, or from another
module of the user's) — but not in a loop that runs only while another ``tf.function`` is
traced, not in a function called once (setup), not over a loop's own distinct functions, and
not in a loop of no more literal iterations than the runtime's ``max-per-site``. Its JAX form:
``jax.jit`` applied in a loop or on every call (:mod:`.jax_jit`); its PyTorch form:
``torch.compile``, ``torch.jit`` and ``torch.export`` applied again to one target.
"""

from __future__ import annotations

import ast
import os
from typing import Any, Container, Iterable

from graphlint.rules._jax import RECREATED_FIX
from graphlint.rules.function_recreated.jax_jit import jit_recreated
from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model.api import TF_FUNCTION
from graphlint.static.model.module import Module, spells
from graphlint.static.model.project import reaches_elsewhere, resolve_function
from graphlint.static.model.repeats import guarded, isolated, loops_run_at_most
from graphlint.static.model.scopes import ONCE_METHODS, PER_CALL_METHODS, CallSite, Function
from graphlint.static.model.tf_functions import traced_at_trace_time


#: Why a function runs again and again: the text, the call site, the loop node (or None).
Repeat = tuple[str, "CallSite | None", "ast.AST | None"]


def check(module: Module, options: dict[str, Any]) -> list[Hit]:
    tf_functions = once_per_line(recreated_functions(module, options))
    jitted = once_per_line(jit_recreated(module))
    compiled = once_per_line(torch_recreated(module, options))
    return [*tf_functions, *(hit._replace(fix=RECREATED_FIX) for hit in jitted), *compiled]


def repeat_reason(module: Module, fn: Function, limit: int, seen: set[int] | None = None) -> Repeat | None:
    """(text, call site, loop node or None) when ``fn`` runs again and again, else None.
    Computed once per function and limit."""
    if seen is None:
        key = ("repeat-reason", id(fn), limit)
        if key not in module.cache:
            module.cache[key] = _repeat_reason(module, fn, limit, set())
        return module.cache[key]
    return _repeat_reason(module, fn, limit, seen)


def _repeat_reason(module: Module, fn: Function, limit: int, seen: set[int]) -> Repeat | None:
    if id(fn) in seen or fn.name in ONCE_METHODS or _memoized(module, fn):
        return None
    seen.add(id(fn))
    for site in fn.callers:
        if isolated(site, module) or traced_at_trace_time(module, site.scope) or guarded(site.ifs):
            continue  # once per trace of an outer tf.function, or once behind a first-time guard
        if site.loops and not loops_run_at_most(module, site.loops, limit):
            return (f"is called in a loop (line {site.line})", site, site.loops[-1].node)
        if site.scope is not None and site.scope is not fn and repeat_reason(module, site.scope, limit, seen):
            return (f"is called from {site.scope.display} (line {site.line}), which runs per call", site, None)
    if fn.is_method and fn.name in PER_CALL_METHODS:
        return ("is a per-call method of a long-lived object", None, None)
    return None


def _memoized(module: Module, fn: Function) -> bool:
    key = ("memoized", id(fn))
    if key not in module.cache:
        module.cache[key] = memoized(fn)
    return module.cache[key]


def memoized(fn: Function) -> bool:
    """``@functools.cache``, or an early ``if self._f is not None: return self._f`` on something
    the function then assigns: its body runs once, later calls return what it made."""
    node = fn.node
    if any(ast.unparse(d).split("(")[0].rsplit(".", 1)[-1] in ("cache", "lru_cache", "cached_property")
           for d in node.decorator_list):
        return True
    early = [
        stmt for stmt in node.body[:4]
        if isinstance(stmt, ast.If) and not stmt.orelse and isinstance(stmt.body[-1], ast.Return)
    ]
    if not early:
        return False  # no early return: the function's assignments need not be read
    assigned = set()
    for n in ast.walk(node):
        for t in n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) else []:
            assigned.add(ast.unparse(t.value if isinstance(t, ast.Subscript) else t))
    for stmt in early:
        tested = {ast.unparse(n) for n in ast.walk(stmt.test) if isinstance(n, (ast.Attribute, ast.Name))}
        if tested & assigned:
            return True
    return False


def _one_per_item(call: CallSite) -> bool:
    """``tf.function(fn)`` over a loop's own items (``for name, fn in fns.items()``): a different
    function each time, each traced once — compiled once per item, not made again."""
    if call.decorator or not isinstance(call.node, ast.Call) or not call.node.args:
        return False
    wrapped = call.node.args[0]
    targets = set()
    for loop in call.loops:
        node = loop.node
        for gen in getattr(node, "generators", None) or ([node] if hasattr(node, "target") else []):
            targets |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
    return isinstance(wrapped, ast.Name) and wrapped.id in targets


def recreated_functions(module: Module, options: dict) -> list[Hit]:
    """GL502's static form: ``tf.function`` applied in a loop, or in a function that runs again
    and again — not in a loop that runs while another tf.function is traced, not in a loop of
    no more than ``max-per-site`` literal iterations (the runtime rule's threshold)."""
    limit = options.get("max-per-site", 2)
    out = []
    for call in module.calls_named(TF_FUNCTION):
        what = "`@tf.function` on a nested def" if call.decorator else "`tf.function(...)`"
        if traced_at_trace_time(module, call.scope) or guarded(call.ifs):
            continue  # once per trace of an outer function, or once behind a first-time guard
        if call.loops:
            if not loops_run_at_most(module, call.loops, limit) and not _one_per_item(call):
                out.append(Hit(
                    call.node,
                    f"{what} inside a loop: a new function, traced again, on every iteration",
                    ((call.loops[-1].node, "the loop"),),
                ))
            continue
        scope = call.scope
        reason = repeat_reason(module, scope, limit) if scope is not None else None
        if reason is None or scope is None:
            continue
        text, site, loop = reason
        related: list[tuple[ast.AST, str]] = []
        if site is not None:
            related.append((site.node, f"{scope.display} is called here"))
        if loop is not None:
            related.append((loop, "in this loop"))
        out.append(Hit(
            call.node,
            f"{what} in {scope.display}, which {text}: a new function, traced again, on every call",
            tuple(related),
        ))
    return out + _recreated_elsewhere(module, limit)


def _recreated_elsewhere(module: Module, limit: int) -> list[Hit]:
    """Calls, again and again, of a function of the user's module beside this one that applies
    ``tf.function`` on every call: reported at the calling line, the application related. Only
    a call in a loop or in a function that runs again and again is resolved."""
    out: list[Hit] = []
    if not reaches_elsewhere(module):
        return out  # its calls lead to no other module
    for site in module.calls:
        if site.target is not None or site.decorator or not isinstance(site.node, ast.Call):
            continue
        if not site.loops and not _may_repeat(site.scope):
            continue  # runs once
        found = resolve_function(module, site)
        if found is None or found[0] is module:
            continue
        other, fn = found
        made = _applies_tf_function(other).get(id(fn))
        if made is None or traced_at_trace_time(module, site.scope) or traced_at_trace_time(other, fn):
            continue
        where = other.location(made.node)
        name = f"{fn.display} (in `{os.path.basename(other.path)}`)"
        related: tuple  # (node or Location, text) pairs, as Hit.related
        if site.loops and not loops_run_at_most(module, site.loops, limit):
            why, related = "in a loop", ((where, f"{fn.display} applies `tf.function` here"), (site.loops[-1].node, "the loop"))
        elif site.scope is not None and (again := repeat_reason(module, site.scope, limit)):
            text = again[0]
            why, related = f"from {site.scope.display}, which {text}", ((where, f"{fn.display} applies `tf.function` here"),)
        else:
            continue
        out.append(Hit(
            site.node,
            f"{name} applies `tf.function` on every call and is called {why}: a new function, traced "
            "again, on every call",
            related,
        ))
    return out


def _may_repeat(fn: Function | None) -> bool:
    """Whether :func:`repeat_reason` may find ``fn`` running again and again (it has callers or
    is a per-call method): a cheap test, before a call in it is resolved."""
    if fn is None or fn.name in ONCE_METHODS:
        return False
    return bool(fn.callers) or (fn.is_method and fn.name in PER_CALL_METHODS)


def _applies_tf_function(module: Module) -> dict:
    """The first ``tf.function`` each function applies outside a loop of its own (so once per
    call of it): ``{id(function): CallSite}``. Once per module."""
    found = module.cache.get("applies-tf-function")
    if found is None:
        found = {}
        for call in module.calls_named(TF_FUNCTION):
            if call.scope is not None and not call.loops:
                found.setdefault(id(call.scope), call)
        module.cache["applies-tf-function"] = found
    return found


# -- PyTorch: torch.compile, torch.jit and torch.export applied again and again ------------------
#: The APIs that compile (or trace) what they are given, each with what doing it again costs.
_TORCH_COSTS = {
    "torch.compile": "a new compiled wrapper, set up again (and compiled again when dynamo's cached code no longer matches)",
    "torch.jit.trace": "the function run and traced into a new TorchScript graph again",
    "torch.jit.trace_module": "the module run and traced into a new TorchScript graph again",
    "torch.jit.script": "a new TorchScript program compiled",
    "torch.export.export": "the whole program traced and exported again",
}
#: The keyword that names what is compiled, when it is not the first argument.
_TORCH_TARGETS = ("model", "func", "obj", "mod")


def torch_recreated(module: Module, options: dict) -> list[Hit]:
    """``torch.compile``, ``torch.jit.script``/``trace``/``trace_module`` or
    ``torch.export.export`` applied, in a loop or in a function that runs again and again, to
    the same function or module: a global, an attribute, a nested ``def`` or lambda (dynamo
    and the runtime form count code made afresh as the same). A target made anew on every pass
    (``model = Net(cfg)`` beside it, the loop's own item) is compiled once each, as a sweep
    over models is, and a parameter's object is not known: neither is reported."""
    limit = options.get("max-per-site", 2)
    out: list[Hit] = []
    if not spells(module, "torch"):
        return out
    for call in module.calls:
        name = call.name
        cost = _TORCH_COSTS.get(name) if name is not None else None
        if name is None or cost is None or guarded(call.ifs):
            continue
        target = _torch_target(call)
        if call.loops:
            if loops_run_at_most(module, call.loops, limit) or _made_each_pass(target, [loop.node for loop in call.loops], call):
                continue
            out.append(Hit(
                call.node, f"{_torch_what(call)} inside a loop: {cost}, on every iteration",
                ((call.loops[-1].node, "the loop"),), fix=_recreated_fix(name),
            ))
            continue
        if call.scope is None or _made_each_pass(target, [call.scope.node], call, call.scope.params):
            continue
        reason = repeat_reason(module, call.scope, limit)
        if reason is None:
            continue
        text, site, loop = reason
        related: list[tuple[ast.AST, str]] = [(site.node, f"{call.scope.display} is called here")] if site is not None else []
        if loop is not None:
            related.append((loop, "in this loop"))
        out.append(Hit(
            call.node, f"{_torch_what(call)} in {call.scope.display}, which {text}: {cost}, on every call",
            tuple(related), fix=_recreated_fix(name),
        ))
    return out


def _recreated_fix(api: str) -> str:
    # torch's texts, imported for a finding only (with a dataclass of the runtime form: ~3M instructions)
    from graphlint.rules._torch import recreated_fix

    return recreated_fix(api)


def _torch_what(call: CallSite) -> str:
    if call.decorator or _torch_target(call) is None:
        return f"`@{call.name}` on a nested def"
    return f"`{call.name}(...)`"


def _torch_target(call: CallSite) -> ast.expr | None:
    node = call.node
    if not isinstance(node, ast.Call):
        return None
    if node.args:
        return node.args[0]
    return next((k.value for k in node.keywords if k.arg in _TORCH_TARGETS), None)


def _made_each_pass(target: ast.expr | None, regions: Iterable[ast.AST], call: CallSite, params: Container[str] = ()) -> bool:
    """``target`` is new on every pass of ``regions`` (loops, or the function): a name bound by
    a loop there or assigned there from a call (``model = Net(cfg)``), or a parameter."""
    if not isinstance(target, ast.Name):
        return False
    if target.id in params:
        return True
    for region in regions:
        for node in ast.walk(region):
            if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and target.id in _names(node.target):
                return True
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value is not call.node:
                if any(target.id in _names(t) for t in node.targets):
                    return True
    return False


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
