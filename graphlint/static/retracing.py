"""Retracing visible in the source: which calls trace a ``tf.function`` again (GL501), and which
``tf.function``s are made again on every call of the function around them (GL502).

``tf.function`` keys its traces on Python values, on the identity of Python objects, on the
structure of lists and on tensor shapes. :func:`retraced_calls` finds calls of a tf.function
(decorated, ``tf.function(f)``, or a decorated method reached through ``self`` or an instance)
inside a loop, with an argument that takes a new such key on every iteration: the loop variable
of ``range``/``enumerate`` or a number computed from it, a counter, a list that grows, a new
object, an array whose shape follows the loop. A loop whose values are known and no more than
``max-traces`` (the runtime rule's threshold) stays silent, and so does a value made a tensor
first, an ``input_signature``, and a loop that runs only while another tf.function is traced.
:func:`recreated_functions` is GL502's analysis on the same facts. Nothing is imported or run.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field

from graphlint.static.hits import Hit
from graphlint.findings import Location
from graphlint.static.module import Function, Module
from graphlint.static.project import resolve_function
from graphlint.static.retracing_loops import loop_values
from graphlint.static.retracing_values import Values
from graphlint.static.tfapi import TF_FUNCTION

#: Keras methods that Keras itself traces (``fit``/``evaluate``/``predict``, ``model(x)`` in a graph).
KERAS_TRACED = frozenset({"train_step", "test_step", "predict_step", "call"})
_KERAS_MODELS = frozenset({"keras.Model", "keras.models.Model", "keras.layers.Layer", "keras.Layer"})


@dataclass(eq=False)
class TfFunction:
    """A ``tf.function`` of the file: the def it traces and how it was declared."""

    name: str
    anchor: ast.AST  # the decorator or the ``tf.function(...)`` call: the related site
    params: tuple  # positional parameter names, ``self`` left out for a bound method
    signature: bool  # an input_signature is declared
    relaxed: bool  # reduce_retracing / experimental_relax_shapes
    module: Module | None = None  # the module it is defined in


@dataclass
class Retrace:
    """One call that traces ``function`` again on every iteration of ``loop``."""

    node: ast.Call
    function: TfFunction
    loop: ast.AST
    causes: list = field(default_factory=list)  # (param, source text, Var)


# -- what is a tf.function ------------------------------------------------------------------
def _declared(module: Module, dec: ast.expr) -> tuple[bool, bool] | None:
    """(input_signature given, shapes relaxed) when ``dec`` is ``tf.function``/``tf.function(...)``."""
    target = dec.func if isinstance(dec, ast.Call) else dec
    if module.bindings.resolve(target) != TF_FUNCTION:
        return None
    if not isinstance(dec, ast.Call):
        return False, False
    kws = {k.arg: k.value for k in dec.keywords if k.arg}
    relaxed = any(
        isinstance(kws.get(k), ast.Constant) and kws[k].value is True
        for k in ("reduce_retracing", "experimental_relax_shapes")
    )
    signature = "input_signature" in kws and not (
        isinstance(kws["input_signature"], ast.Constant) and kws["input_signature"].value is None
    )
    return signature, relaxed


def decorated(module: Module, fn: Function) -> TfFunction | None:
    """The tf.function a decorated def is, or None."""
    cache = module.cache.setdefault("retracing.decorated", {})
    if id(fn) in cache:
        return cache[id(fn)]
    found = None
    for dec in fn.node.decorator_list:
        declared = _declared(module, dec)
        if declared is not None:
            found = TfFunction(fn.qualname, dec, _params(fn, bound=fn.is_method), *declared, module)
            break
    cache[id(fn)] = found
    return found


def _params(fn: Function, bound: bool) -> tuple:
    args = fn.node.args
    names = [a.arg for a in args.posonlyargs + args.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.node.decorator_list)
    return tuple(names[1:] if bound and not static and names else names)


def traced_at_trace_time(module: Module, fn: Function | None) -> bool:
    """Whether code in ``fn`` runs only while a tf.function (or Keras' own step) is traced."""
    while fn is not None:
        if decorated(module, fn) is not None:
            return True
        if fn.is_method and fn.name in KERAS_TRACED and is_keras_class(module, fn.cls):
            return True
        fn = fn.parent
    return False


def is_keras_class(module: Module, cls, seen=()) -> bool:
    if cls is None or id(cls) in seen:
        return False
    for base, node in zip(cls.bases, cls.node.bases):
        if base in _KERAS_MODELS:
            return True
        if isinstance(node, ast.Name) and is_keras_class(module, module.classes.get(node.id), seen + (id(cls),)):
            return True
    return False


def _method(module: Module, cls, name: str, seen=()):
    """``cls.name``, looked up through the file's own base classes."""
    if cls is None or id(cls) in seen:
        return None
    if name in cls.methods:
        return cls.methods[name]
    for node in cls.node.bases:
        if isinstance(node, ast.Name):
            found = _method(module, module.classes.get(node.id), name, seen + (id(cls),))
            if found is not None:
                return found
    return None


def _wrapped(module: Module) -> dict:
    """``name = tf.function(f)`` / ``self.name = tf.function(self.f)``: binding key -> TfFunction."""
    if "retracing.wrapped" in module.cache:
        return module.cache["retracing.wrapped"]
    out: dict = {}
    sites = {id(c.node): c for c in module.calls_named(TF_FUNCTION) if not c.decorator}
    for node in ast.walk(module.tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and id(node.value) in sites):
            continue
        site, call, target = sites[id(node.value)], node.value, node.targets[0]
        declared = _declared(module, call)
        if declared is None or not call.args:
            continue
        fn, bound = _resolve_def(module, call.args[0], site.scope, site.cls)
        params = _params(fn, bound) if fn is not None else ()
        if isinstance(call.args[0], ast.Lambda):
            params = tuple(a.arg for a in call.args[0].args.args)
        name = fn.qualname if fn is not None else ast.unparse(call.args[0])
        key = _key(target, site.scope, site.cls)
        if key is not None:
            out[key] = TfFunction(name, call, params, *declared, module)
    module.cache["retracing.wrapped"] = out
    return out


def _key(target, scope, cls):
    if isinstance(target, ast.Name):
        return (id(scope) if scope is not None else None, target.id)
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return ("self", id(cls), target.attr) if cls is not None else None
    return None


def _resolve_def(module: Module, expr, scope, cls):
    """The user's def an expression names: (Function, bound) or (None, False)."""
    if isinstance(expr, ast.Name):
        s = scope
        while s is not None:
            if expr.id in s.children:
                return s.children[expr.id], False
            s = s.parent
        return module.module_functions.get(expr.id), False
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return _method(module, cls, expr.attr), True
    return None, False


def callee(module: Module, site) -> TfFunction | None:
    """The tf.function a call site calls, when the file shows it."""
    if site.target is not None:
        found = decorated(module, site.target)
        if found is not None:
            return found
    elsewhere = resolve_function(module, site) if site.target is None else None
    if elsewhere is not None and elsewhere[0] is not module:
        return decorated(*elsewhere)  # a decorated function of the user's module beside this one
    func = site.node.func
    wrapped = _wrapped(module)
    if isinstance(func, ast.Name):
        s = site.scope
        while True:
            hit = wrapped.get((id(s) if s is not None else None, func.id))
            if hit is not None or s is None:
                return hit
            s = s.parent
    if isinstance(func, ast.Attribute):
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id == "self" and site.cls is not None:
            hit = wrapped.get(("self", id(site.cls), func.attr))
            if hit is not None:
                return hit
            fn = _method(module, site.cls, func.attr)
            return decorated(module, fn) if fn is not None else None
        labels = module.origins(receiver, site.scope)
        if len(labels) == 1 and next(iter(labels)).startswith("class:"):
            fn = _method(module, module.classes.get(next(iter(labels))[6:]), func.attr)
            return decorated(module, fn) if fn is not None else None
    return None


# -- GL501 ----------------------------------------------------------------------------------
def retraced_calls(module: Module, max_traces: int) -> list[Retrace]:
    """Calls of a tf.function in a loop that pass a Python value changing per iteration."""
    out = []
    for site in module.calls:
        if not site.loops or site.decorator or not isinstance(site.node, ast.Call):
            continue
        function = callee(module, site)
        if function is None or function.signature or traced_at_trace_time(module, site.scope):
            continue
        values = Values(module, site)
        found = Retrace(site.node, function, site.loops[-1].node)
        args = [(function.params[i] if i < len(function.params) else f"argument {i + 1}", a)
                for i, a in enumerate(site.node.args) if not isinstance(a, ast.Starred)]
        args += [(k.arg, k.value) for k in site.node.keywords if k.arg]
        once = values.once_per_run(site)
        for param, arg in args:
            var = values.argument(arg)
            if var is None or not var.varying or (var.kind == "shape" and function.relaxed) or var.loop in once:
                continue
            found.causes.append((param, ast.unparse(arg), var))
        keys = _distinct_keys([var for _, _, var in found.causes])
        if not found.causes or (keys is not None and keys <= max_traces):
            continue
        main = [c for c in found.causes if c[2].bound is None or c[2].bound > 2] or found.causes
        found.causes = main
        found.loop = main[0][2].loop or found.loop
        out.append(found)
    return out


def _distinct_keys(vars_) -> int | None:
    """How many distinct argument combinations the call can make: the product, over the loop
    variables the values follow, of the most values one of them takes (None: unbounded)."""
    per_source: dict = {}
    for i, var in enumerate(vars_):
        if var.bound is None:
            return None
        key = var.source or i
        per_source[key] = max(per_source.get(key, 0), var.bound)
    total = 1
    for bound in per_source.values():
        total *= bound
    return total


# -- GL502 ----------------------------------------------------------------------------------
def _loop_bound(module: Module, loop) -> int | None:
    node = loop.node
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return loop_values(module, node.target, node.iter).get("__count__")
    return None


def _short(module: Module, loops, limit: int) -> bool:
    """Whether the loops run, all together, a known number of times no more than ``limit``."""
    total = 1
    for loop in loops:
        bound = _loop_bound(module, loop)
        if bound is None:
            return False
        total *= bound
    return total <= limit


def repeat_reason(module: Module, fn: Function, limit: int, seen=None):
    """(text, call site, loop node or None) when ``fn`` runs again and again, else None."""
    from graphlint.static.module import ONCE_METHODS, PER_CALL_METHODS

    seen = set() if seen is None else seen
    if id(fn) in seen or fn.name in ONCE_METHODS:
        return None
    seen.add(id(fn))
    for site in fn.callers:
        if module.isolated(site) or traced_at_trace_time(module, site.scope):
            continue  # a loop that runs while a tf.function is traced runs once per trace
        if site.loops and not _short(module, site.loops, limit):
            return (f"is called in a loop (line {site.line})", site, site.loops[-1].node)
        if site.scope is not None and site.scope is not fn and repeat_reason(module, site.scope, limit, seen):
            return (f"is called from {site.scope.display} (line {site.line}), which runs per call", site, None)
    if fn.is_method and fn.name in PER_CALL_METHODS:
        return ("is a per-call method of a long-lived object", None, None)
    return None


def recreated_functions(module: Module, options: dict) -> list[Hit]:
    """GL502's static form: ``tf.function`` applied in a loop, or in a function that runs again
    and again — not in a loop that runs while another tf.function is traced, not in a loop of
    no more than ``max-per-site`` literal iterations (the runtime rule's threshold)."""
    limit = options.get("max-per-site", 2)
    out = []
    for call in module.calls_named(TF_FUNCTION):
        what = "`@tf.function` on a nested def" if call.decorator else "`tf.function(...)`"
        if traced_at_trace_time(module, call.scope):
            continue  # a loop that runs while an outer function is traced: once per trace
        if call.loops:
            if not _short(module, call.loops, limit):
                out.append(Hit(
                    call.node,
                    f"{what} inside a loop: a new function, traced again, on every iteration",
                    ((call.loops[-1].node, "the loop"),),
                ))
            continue
        reason = repeat_reason(module, call.scope, limit) if call.scope is not None else None
        if reason is None:
            continue
        text, site, loop = reason
        related = []
        if site is not None:
            related.append((site.node, f"{call.scope.display} is called here"))
        if loop is not None:
            related.append((loop, "in this loop"))
        out.append(Hit(
            call.node,
            f"{what} in {call.scope.display}, which {text}: a new function, traced again, on every call",
            tuple(related),
        ))
    return out + _recreated_elsewhere(module, limit)


def _recreated_elsewhere(module: Module, limit: int) -> list[Hit]:
    """Calls, again and again, of a function of the user's module beside this one that applies
    ``tf.function`` on every call: reported at the calling line, the application related."""
    out = []
    for site in module.calls:
        if site.target is not None or site.decorator or not isinstance(site.node, ast.Call):
            continue
        found = resolve_function(module, site)
        if found is None or found[0] is module or traced_at_trace_time(module, site.scope):
            continue
        other, fn = found
        made = [c for c in other.calls_named(TF_FUNCTION) if c.scope is fn and not c.loops]
        if not made or traced_at_trace_time(other, fn):
            continue
        where = other.location(made[0].node)
        name = f"{fn.display} (in `{os.path.basename(other.path)}`)"
        if site.loops and not _short(module, site.loops, limit):
            why, related = "in a loop", ((where, f"{fn.display} applies `tf.function` here"), (site.loops[-1].node, "the loop"))
        elif site.scope is not None and repeat_reason(module, site.scope, limit):
            text = repeat_reason(module, site.scope, limit)[0]
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


def report(rule, module: Module, hits) -> None:
    """Report hits whose related sites may lie in another module (given as Locations)."""
    seen = set()
    for hit in hits:
        key = (getattr(hit.node, "lineno", 0), hit.message)
        if key not in seen:
            seen.add(key)
            related = [(n if isinstance(n, Location) else module.location(n), text) for n, text in hit.related]
            rule.report(hit.message, module.location(hit.node), related=related)
