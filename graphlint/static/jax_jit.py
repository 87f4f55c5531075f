"""``jax.jit`` applied in a loop or on every call (GL502's JAX form).

Matches ``jax.jit(f)``, ``jax.jit(lambda ...)``, ``@jax.jit`` / ``@partial(jax.jit, ...)`` on a
nested ``def``, and ``jax.jit`` inside other transformations (``jax.vmap(jax.jit(f))``), by the
canonical name ``jax.jit`` (``from jax import jit as j`` resolves too).
"""

from __future__ import annotations

from graphlint.static.hits import Hit

JAX_JIT = "jax.jit"
_PARTIAL = frozenset({"functools.partial"})


def _jit_creations(module):
    """(call site, words) for each place the file makes a jitted function."""
    for call in module.calls:
        if call.name == JAX_JIT:
            yield call, "`@jax.jit` on a nested def" if call.decorator else "`jax.jit(...)`"
        elif call.name in _PARTIAL and call.node.args and module.bindings.resolve(call.node.args[0]) == JAX_JIT:
            yield call, "`partial(jax.jit, ...)`"


def jit_recreated(module) -> list[Hit]:
    """``jax.jit`` applied in a loop, or in a function that runs again and again."""
    found = []
    for call, what in _jit_creations(module):
        if call.loops:
            found.append(
                Hit(call.node, f"{what} inside a loop: a new jitted function, traced and compiled again, on every iteration")
            )
        elif call.scope is not None:
            reason = module.per_call(call.scope)
            if reason is not None:
                related = ((reason.site.node, "called here"),) if reason.site else ()
                found.append(
                    Hit(
                        call.node,
                        f"{what} in {call.scope.display}, which {reason.text}: a new jitted function, "
                        "traced and compiled again, on every call",
                        related,
                    )
                )
    return found
