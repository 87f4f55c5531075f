"""GL502's JAX form: ``jax.jit`` applied in a loop or on every call.

Matches ``jax.jit(f)``, ``jax.jit(lambda ...)``, ``@jax.jit`` / ``@partial(jax.jit, ...)`` on a
nested ``def``, and ``jax.jit`` inside other transformations (``jax.vmap(jax.jit(f))``), by the
canonical name ``jax.jit`` (``from jax import jit as j`` resolves too).
"""

from __future__ import annotations

import ast

from graphlint.static.hits import Hit
from graphlint.static.model.module import spells
from graphlint.static.model.repeats import per_call

JAX_JIT = "jax.jit"
_PARTIAL = frozenset({"functools.partial"})


def _jit_creations(module):
    """(call site, words, what happens) for each place the file makes a jitted function."""
    for call in module.calls:
        if call.name == JAX_JIT:
            if call.decorator:
                yield call, "`@jax.jit` on a nested def", _RETRACED
            else:
                yield call, "`jax.jit(...)`", _effect(module, call)
        elif call.name in _PARTIAL and call.node.args and module.bindings.resolve(call.node.args[0]) == JAX_JIT:
            yield call, "`partial(jax.jit, ...)`", _RETRACED


_RETRACED = "a new jitted function, traced and compiled again,"
_UNKNOWN = "a new jitted function, traced again unless JAX finds the same function object in its cache,"


def _effect(module, call) -> str | None:
    """What re-jitting costs, by what is jitted: a lambda or nested def is a new function each
    time (a new trace); a function defined once at module level, or imported, is the same object
    every time, which JAX finds in its compile cache (None: nothing is traced again; measured with
    JAX 0.10.2: ten ``jax.jit(f)(x)`` in a loop trace ``f`` once, as one hoisted ``jax.jit`` does)."""
    args = call.node.args if isinstance(call.node, ast.Call) else []
    target = args[0] if args else None
    if isinstance(target, ast.Lambda):
        return _RETRACED
    if isinstance(target, ast.Call) and module.bindings.resolve(target.func) in _PARTIAL:
        return _RETRACED  # a new partial object each time
    if isinstance(target, ast.Attribute) and module.bindings.dotted(target) is not None:
        return None  # a function of an imported module (`jnp.sum`): one object
    if isinstance(target, ast.Name):
        scope = call.scope
        while scope is not None:
            if target.id in scope.children:
                return _RETRACED  # a def nested in the function: new on every call
            if target.id in scope.params:
                return _UNKNOWN
            scope = scope.parent
        fn = module.module_functions.get(target.id)
        if fn is not None and _defined_once(module, fn.node):
            return None
        if fn is None and target.id in module.bindings.names and not _rebound(module, target.id, None):
            return None  # an imported function: one object
    return _UNKNOWN


def _top_statements(body):
    """The module's statements that run once: its body and what ``if``/``try``/``with`` hold,
    not what a loop holds."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.With, ast.Try)):
            yield from _top_statements(stmt.body)
            yield from _top_statements(getattr(stmt, "orelse", ()))
            for handler in getattr(stmt, "handlers", ()):
                yield from _top_statements(handler.body)
            yield from _top_statements(getattr(stmt, "finalbody", ()))


def _defined_once(module, node: ast.AST) -> bool:
    """Whether ``node`` runs once (not in a loop) and is the only statement binding its name."""
    return any(s is node for s in _top_statements(module.tree.body)) and not _rebound(module, getattr(node, "name", None), node)


def _rebound(module, name: str | None, keep: ast.AST | None) -> bool:
    """Whether anything but an import and ``keep`` binds ``name``, anywhere in the file
    (answered once per name and def: a loop may jit the same function at many lines)."""
    key = ("jit-rebound", name, id(keep))
    found = module.cache.get(key)
    if found is None:
        found = module.cache[key] = _binds_elsewhere(module, name, keep)
    return found


def _binds_elsewhere(module, name: str | None, keep: ast.AST | None) -> bool:
    for node in ast.walk(module.tree):
        if node is keep or isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name and node is not keep:
                return True
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
        elif isinstance(node, ast.Global) and name in node.names:
            return True
    return False


def jit_recreated(module) -> list[Hit]:
    """``jax.jit`` applied in a loop, or in a function that runs again and again."""
    found: list[Hit] = []
    if not spells(module, "jax"):
        return found

    for call, what, effect in _jit_creations(module):
        if effect is None:
            continue  # the same function every time: JAX's cache finds it
        if call.loops:
            found.append(Hit(call.node, f"{what} inside a loop: {effect} on every iteration"))
        elif call.scope is not None:
            reason = per_call(module, call.scope)
            if reason is not None:
                related = ((reason.site.node, "called here"),) if reason.site else ()
                found.append(Hit(call.node, f"{what} in {call.scope.display}, which {reason.text}: {effect} on every call", related))
    return found
