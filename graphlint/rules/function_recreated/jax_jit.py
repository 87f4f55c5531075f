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


def _effect(module, call) -> str:
    """What re-jitting costs, by what is jitted: a lambda or nested def is a new function each
    time (a new trace); a module-level or imported function is the same object, which JAX's
    caches recognise only in part (measured with JAX 0.10: 10 wrappers of one function, 4 traces)."""
    args = call.node.args if isinstance(call.node, ast.Call) else []
    target = args[0] if args else None
    if isinstance(target, ast.Lambda):
        return _RETRACED
    if isinstance(target, ast.Name):
        scope = call.scope
        while scope is not None:
            if target.id in scope.children:
                return _RETRACED  # a def nested in the function: new on every call
            if target.id in scope.params:
                return _UNKNOWN
            scope = scope.parent
        if target.id in module.module_functions or target.id in module.bindings.names:
            return f"a new jitted wrapper around `{target.id}`, which JAX may trace and compile again,"
    return _UNKNOWN


def jit_recreated(module) -> list[Hit]:
    """``jax.jit`` applied in a loop, or in a function that runs again and again."""
    found: list[Hit] = []
    if not spells(module, "jax"):
        return found

    for call, what, effect in _jit_creations(module):
        if call.loops:
            found.append(Hit(call.node, f"{what} inside a loop: {effect} on every iteration"))
        elif call.scope is not None:
            reason = per_call(module, call.scope)
            if reason is not None:
                related = ((reason.site.node, "called here"),) if reason.site else ()
                found.append(Hit(call.node, f"{what} in {call.scope.display}, which {reason.text}: {effect} on every call", related))
    return found
