"""What GL501 and GL502 say about ``jax.jit`` functions: JAX's causes of a trace, JAX's fixes.

JAX keys its trace cache on the shape, dtype and weak type of each array argument, the pytree
structure around them, and the value (hash and ==) of each static argument; a Python scalar
passed as a traced argument is a weakly typed 0-d array, so its value never retraces, but
switching between it and an array does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphlint.events import Argument

RECREATED_FIX = (
    "Apply jax.jit once — at module level, as a decorator, or in __init__ — and call the jitted "
    "function in the loop; pass what changes as arguments instead of closing over it (mark the "
    "ones that are not arrays with static_argnames)."
)


def _names(seqs: Sequence[Sequence[Argument]]) -> str:
    return ", ".join(f"`{seq[0].name}`" for seq in seqs)


def _weak_label(arg: Argument) -> str:
    if arg.dtype and arg.dtype.endswith(" (weak)"):
        base = arg.dtype[: -len(" (weak)")]
        return f"Python {arg.type} (weak {base})" if arg.type != "array" else f"weak {base} array"
    return f"{arg.dtype} array"


def retraced(changes: Sequence[tuple[str, str, list[Argument]]], arrow: Callable[[list[str]], str]) -> tuple[str, str]:
    """(what changed, the fix) for GL501 on a ``jax.jit`` function; ``changes`` as GL501 finds
    them: ``(text, cause, summaries)`` per argument, ``arrow`` joins values in trace order."""
    texts: list[str] = []
    fixes: list[str] = []
    by_cause: dict[str, list[list[Argument]]] = {}
    for text, cause, seq in changes:
        if cause == "dtype" and any((a.dtype or "").endswith(" (weak)") for a in seq):
            cause = "weak"
            text = f"`{seq[0].name}` " + arrow([_weak_label(a) for a in seq])
        elif cause == "value" or (cause == "object" and seq[0].kind == "object"):
            text = "static argument " + text
        by_cause.setdefault(cause, []).append(seq)
        texts.append(text)
    if "shape" in by_cause:
        fixes.append(
            f"Pad or bucket {_names(by_cause['shape'])} to a few fixed shapes (e.g. round the length up "
            "to a power of two and mask the padding): every new shape is a new trace and compile."
        )
    if "value" in by_cause:
        fixes.append(
            f"Make {_names(by_cause['value'])} a traced argument (drop it from static_argnums/"
            "static_argnames) if the function only computes with it, or keep its values few (round "
            "or bucket them): every new value of a static argument is a new trace and compile."
        )
    if "weak" in by_cause:
        fixes.append(
            f"Always pass {_names(by_cause['weak'])} as an array of one dtype (e.g. "
            "`jnp.asarray(x, jnp.float32)`): a Python scalar is weakly typed, an array is not, and "
            "each switch between them is a new trace."
        )
    if "dtype" in by_cause:
        fixes.append(
            f"Convert {_names(by_cause['dtype'])} to one dtype before the call (e.g. `jnp.asarray(x, jnp.float32)`)."
        )
    if "object" in by_cause:
        fixes.append(
            f"Pass the same {_names(by_cause['object'])} object every time, or make it hashable by value "
            "(a frozen dataclass or NamedTuple): JAX compares static arguments with hash and ==."
        )
    if "structure" in by_cause or "type" in by_cause:
        seqs = by_cause.get("structure", []) + by_cause.get("type", [])
        fixes.append(f"Always pass {_names(seqs)} with one pytree structure (the same keys, lengths and leaf kinds).")
    return "; ".join(texts), " ".join(fixes)
