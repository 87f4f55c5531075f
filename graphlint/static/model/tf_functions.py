"""The file's ``tf.function``s: a decorated def or method, ``tf.function(f)`` bound to a name
(:func:`decorated`, :func:`callee`: the tf.function a call calls), and code that runs only
while one is traced (:func:`traced_at_trace_time`). What GL501 and GL502 read."""

from __future__ import annotations

import ast

from graphlint.static.model.api import TF_FUNCTION
from graphlint.static.model.module import Module
from graphlint.static.model.project import lineage, reaches_elsewhere, resolve_function
from graphlint.static.model.scopes import CallSite, ClassInfo, Function

#: Keras methods that Keras itself traces (``fit``/``evaluate``/``predict``, ``model(x)`` in a graph).
KERAS_TRACED = frozenset({"train_step", "test_step", "predict_step", "call"})
_KERAS_MODELS = frozenset({"keras.Model", "keras.models.Model", "keras.layers.Layer", "keras.Layer"})


class TfFunction:
    """A ``tf.function`` of the file: the def it traces and how it was declared."""

    name: str
    anchor: ast.AST  # the decorator or the ``tf.function(...)`` call: the related site
    params: tuple  # positional parameter names, ``self`` left out for a bound method
    signature: bool  # an input_signature is declared
    relaxed: bool  # reduce_retracing / experimental_relax_shapes
    module: Module | None  # the module it is defined in

    def __init__(self, name: str, anchor: ast.AST, params: tuple, signature: bool, relaxed: bool,
                 module: Module | None = None) -> None:
        self.name, self.anchor, self.params = name, anchor, params
        self.signature, self.relaxed, self.module = signature, relaxed, module


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
        isinstance(kws.get(k), ast.Constant) and getattr(kws[k], "value", None) is True  # a Constant
        for k in ("reduce_retracing", "experimental_relax_shapes")
    )
    spec = kws.get("input_signature", dec.args[1] if len(dec.args) > 1 else None)  # tf.function(f, [specs])
    signature = spec is not None and not (isinstance(spec, ast.Constant) and spec.value is None)
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
            found = TfFunction(fn.qualname, dec, params(fn, bound=fn.is_method), *declared, module)
            break
    cache[id(fn)] = found
    return found


def params(fn: Function, bound: bool) -> tuple:
    """The positional parameters of a def, ``self`` left out when called bound."""
    args = fn.node.args
    names = [a.arg for a in args.posonlyargs + args.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.node.decorator_list)
    return tuple(names[1:] if bound and not static and names else names)


def traced_at_trace_time(module: Module, fn: Function | None) -> bool:
    """Whether code in ``fn`` runs only while a tf.function (or Keras' own step) is traced."""
    wrapped = _wrapped_defs(module)
    while fn is not None:
        if decorated(module, fn) is not None or id(fn) in wrapped or (id(fn.parent), fn.name) in wrapped:
            return True
        if fn.is_method and fn.name in KERAS_TRACED and is_keras_class(module, fn.cls):
            return True
        fn = fn.parent
    return False


def is_keras_class(module: Module, cls: ClassInfo | None) -> bool:
    """A class of the file that derives from a Keras model (through the file's own classes)."""
    return cls is not None and any(base in _KERAS_MODELS for own in lineage(module, cls) for base in own.bases)


def _method(module: Module, cls: ClassInfo | None, name: str) -> Function | None:
    """``cls.name``, looked up through the file's own base classes."""
    if cls is None:
        return None
    return next((own.methods[name] for own in lineage(module, cls) if name in own.methods), None)


def _wrapped(module: Module) -> dict:
    """``name = tf.function(f)`` / ``self.name = tf.function(self.f)``: binding key -> TfFunction."""
    if "retracing.wrapped" in module.cache:
        return module.cache["retracing.wrapped"]
    out: dict = {}
    sites = {id(c.node): c for c in module.calls_named(TF_FUNCTION) if not c.decorator}
    for node in ast.walk(module.tree) if sites else ():
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and id(node.value) in sites):
            continue
        site, call, target = sites[id(node.value)], node.value, node.targets[0]
        assert isinstance(call, ast.Call)  # a call site's node: a tf.function(...) call
        declared = _declared(module, call)
        if declared is None or not call.args:
            continue
        fn, bound = _resolve_def(module, call.args[0], site.scope, site.cls)
        names = params(fn, bound) if fn is not None else ()
        if isinstance(call.args[0], ast.Lambda):
            names = tuple(a.arg for a in call.args[0].args.args)
        name = fn.qualname if fn is not None else ast.unparse(call.args[0])
        key = _key(target, site.scope, site.cls)
        if key is not None:
            out[key] = TfFunction(name, call, names, *declared, module)
    module.cache["retracing.wrapped"] = out
    return out


def _wrapped_defs(module: Module) -> set:
    """The user's defs that some ``tf.function(f)`` in the file wraps: ids, and (scope id, name)."""
    if "retracing.wrapped_defs" not in module.cache:
        out: set[int | tuple[int, str]] = set()
        for site in module.calls_named(TF_FUNCTION):
            if not site.decorator and isinstance(site.node, ast.Call) and site.node.args:
                arg = site.node.args[0]
                fn, _ = _resolve_def(module, arg, site.scope, site.cls)
                if fn is not None:
                    out.add(id(fn))
                if isinstance(arg, ast.Name):  # also an earlier def of the same name in that scope
                    out.add((id(site.scope), arg.id))
        module.cache["retracing.wrapped_defs"] = out
    return module.cache["retracing.wrapped_defs"]


def _key(target: ast.expr, scope: Function | None, cls: ClassInfo | None) -> tuple | None:
    if isinstance(target, ast.Name):
        return (id(scope) if scope is not None else None, target.id)
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return ("self", id(cls), target.attr) if cls is not None else None
    return None


def _resolve_def(module: Module, expr: ast.expr, scope: Function | None, cls: ClassInfo | None) -> tuple[Function | None, bool]:
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


def callee(module: Module, site: CallSite) -> TfFunction | None:
    """The tf.function a call site calls, when the file shows it."""
    if site.target is not None:
        found = decorated(module, site.target)
        if found is not None:
            return found
    elsewhere = resolve_function(module, site) if site.target is None else None
    if elsewhere is not None and elsewhere[0] is not module:
        return decorated(*elsewhere)  # a decorated function of the user's module beside this one
    if not _has_tf_functions(module):
        return None  # what follows finds only the file's own tf.functions
    if not isinstance(site.node, ast.Call):
        return None  # a bare decorator
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


def may_call_tf_function(module: Module) -> bool:
    """Whether :func:`callee` may find a tf.function for some call of ``module``: the file has
    one of its own, or its calls may lead to another module (where a decorated one may be)."""
    return reaches_elsewhere(module) or _has_tf_functions(module)


def _has_tf_functions(module: Module) -> bool:
    """Whether the file has a tf.function of its own: a decorated def or method, or a ``tf.function(f)``."""
    found = module.cache.get("retracing.has-tf-functions")
    if found is None:
        defs = [*module.functions, *(m for cls in module.classes.values() for m in cls.methods.values())]
        found = bool(_wrapped(module)) or any(fn.node.decorator_list and decorated(module, fn) for fn in defs)
        module.cache["retracing.has-tf-functions"] = found
    return found
