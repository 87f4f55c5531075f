"""What GL501, GL502 and GL506 say about PyTorch's ``torch.compile``: dynamo's causes of a
recompile, its limit, the calls that compile again and again, graph breaks — and the fix for each.

dynamo guards each compiled frame on what the compile assumed: tensor shapes (exact ones under
``dynamic=False``; after a first change, automatic dynamic shapes make the changing dimension
symbolic), dtypes and ``requires_grad``, Python numbers (an ``int`` attribute of an
``nn.Module`` is a constant unless ``allow_unspec_int_on_nn_module``), globals, closed-over
values, the identity of objects. A failed guard compiles the frame again; after
``torch._dynamo.config.recompile_limit`` compiles (8) the frame runs eagerly for the rest of
the program.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import TYPE_CHECKING, Hashable

if TYPE_CHECKING:
    from graphlint.events import Argument, Guard
    from graphlint.stacks import Frame

RECOMPILE_LIMIT = "torch._dynamo.config.recompile_limit"


def _names(seqs: Sequence[Sequence[Argument]]) -> str:
    return ", ".join(f"`{seq[0].name}`" for seq in seqs)


def recompiled(
    name: str, count: int, max_traces: int, changes: Sequence[tuple[str, str, list[Argument]]], guard: Guard | None,
    limit: tuple[int, int | None, str] | None, dynamic_shapes: bool,
) -> tuple[str, str]:
    """(message, fix) for GL501 on a frame torch.compile compiled ``count`` times; ``changes``
    as GL501 finds them, ``guard`` the last failed guard, ``limit`` ``(compiles, limit,
    limit_type)`` once dynamo stopped compiling the frame."""
    what = "; ".join(_text(text, seq) for text, _, seq in changes)
    if limit is not None:
        compiles, value, limit_type = limit
        head = (
            f"{name} reached torch.compile's recompile limit ({compiles} compiles, "
            f"torch._dynamo.config.{limit_type} = {value}): dynamo gave up on it and runs it eagerly "
            "(uncompiled) from then on"
        )
    else:
        head = f"{name} was compiled {count} times by torch.compile (limit {max_traces})"
    parts = [head]
    if what:
        parts.append(f"changed between compiles: {what}")
    if guard is not None:
        parts.append(f"dynamo's last failed guard: `{guard.text}`")
    return "; ".join(parts), _fix(changes, guard, dynamic_shapes)


def _text(text: str, seq: Sequence[Argument]) -> str:
    if seq[0].kind == "tensor" and any(" requires_grad" in (a.dtype or "") for a in seq):
        flags = ["requires_grad" if " requires_grad" in (a.dtype or "") else "no grad" for a in seq]
        if len({_without_grad(a) for a in seq}) == 1:
            return f"`{seq[0].name}` " + " → ".join(dict.fromkeys(flags))
    return text


def _without_grad(arg: Argument) -> str:
    """A tensor's dtype without the requires_grad flag its summary carries."""
    return (arg.dtype or "").replace(" requires_grad", "")


def _varying_dims(seq: Sequence[Argument]) -> list[int]:
    shapes = [a.shape for a in seq if a.shape is not None]
    if not shapes or len({len(s) for s in shapes}) != 1:
        return []
    return [i for i in range(len(shapes[0])) if len({s[i] for s in shapes}) > 1]


def _fix(changes: Sequence[tuple[str, str, list[Argument]]], guard: Guard | None, dynamic_shapes: bool) -> str:
    by_cause: dict[str, list[list[Argument]]] = {}
    for _, cause, seq in changes:
        if cause == "dtype" and all(_without_grad(a) == _without_grad(seq[0]) for a in seq):
            cause = "grad"
        if cause == "value" and "." in seq[0].name:
            cause = "attribute"
        by_cause.setdefault(cause, []).append(seq)
    fixes = []
    for seq in by_cause.get("shape", []):
        fixes.append(shape_fix(seq[0].name, _varying_dims(seq) or [0], dynamic_shapes))
    if "attribute" in by_cause:
        seqs = by_cause["attribute"]
        attr = seqs[0][0].name
        module_int = guard is not None and guard.hint is not None and "nn.Module" in guard.hint
        if module_int or attr.startswith("self."):
            fixes.append(module_int_fix(_names(seqs), attr))
        else:
            fixes.append(
                f"Pass {_names(seqs)} to the compiled function as a 0-d tensor (`torch.tensor(value)`) instead of "
                "reading it from an object: dynamo compiles again for each new value it reads."
            )
    if "value" in by_cause:
        seqs = by_cause["value"]
        scope = ""
        if guard is not None and guard.source and guard.source.startswith("G["):
            scope = " (a global the function reads: pass it as an argument)"
        fixes.append(number_fix(_names(seqs), dynamic_shapes, scope))
    if "dtype" in by_cause:
        fixes.append(f"Convert {_names(by_cause['dtype'])} to one dtype before the call (e.g. `x.float()`).")
    if "grad" in by_cause:
        fixes.append(
            f"Call with {_names(by_cause['grad'])} of one requires_grad setting (`x.detach()`, or every call under "
            "`torch.no_grad()`): each change compiles again."
        )
    if "object" in by_cause:
        fixes.append(
            f"Create {_names(by_cause['object'])} once and pass the same object, or pass the values it carries as "
            "tensors: dynamo guards on what it read from the object."
        )
    if "structure" in by_cause or "type" in by_cause:
        seqs = by_cause.get("structure", []) + by_cause.get("type", [])
        fixes.append(
            f"Pass {_names(seqs)} as one stacked tensor (`torch.stack(...)`) of one structure: each new length or "
            "kind of item compiles again."
        )
    if not fixes:
        fixes.append(
            "Keep what dynamo's guard checks the same from call to call (TORCH_LOGS=recompiles_verbose lists every "
            "guard that failed)."
        )
    return " ".join(fixes)


def shape_fix(name: str, dims: Sequence[int], dynamic_shapes: bool) -> str:
    """The fix for a tensor argument ``name`` whose dimensions ``dims`` change from call to call."""
    marks = "; ".join(f"torch._dynamo.mark_dynamic({name}, {d})" for d in dims)
    if dynamic_shapes:
        return (
            f"Mark the dimension of `{name}` that varies dynamic before the first call (`{marks}`), or "
            "pad it to a few fixed sizes: each new size is a new compile."
        )
    return (
        "Drop `dynamic=False` from torch.compile (the default, `dynamic=None`, compiles one graph with a "
        f"symbolic size after the first change), or mark the dimension of `{name}` that varies: `{marks}`."
    )


def module_int_fix(names: str, attr: str) -> str:
    """The fix for an int attribute of an nn.Module (``names``: the attributes, quoted) that changes."""
    short = attr.rsplit(".", 1)[-1]
    return (
        f"Keep {names} in a tensor buffer (`self.register_buffer('{short}', torch.zeros((), "
        f"dtype=torch.long))`, then `{attr} += 1`), or set `torch._dynamo.config."
        "allow_unspec_int_on_nn_module = True`: torch.compile treats an int attribute of an nn.Module as a "
        "constant, and compiles again for each new value."
    )


def number_fix(names: str, dynamic_shapes: bool, scope: str = "") -> str:
    """The fix for Python numbers (``names``, quoted) that change from call to call."""
    how = "" if dynamic_shapes else ", or drop `dynamic=False` so that dynamo makes the number symbolic"
    return (
        f"Pass {names} as a 0-d tensor (`torch.tensor(value)`){scope}{how}: dynamo compiles again for each "
        "new value of a Python number it specializes on."
    )


# -- GL502: the same function or module compiled again and again -------------------------------------
_MADE = {
    "torch.compile": (
        "applied `torch.compile` to",
        "a new compiled wrapper each time (torch.compile's set-up on every call, and a new compile whenever "
        "dynamo's cached code no longer matches)",
    ),
    "torch.jit.trace": ("traced", "each trace runs the function again and builds a new TorchScript graph"),
    "torch.jit.script": ("scripted", "each call compiles a new TorchScript program"),
    "torch.export.export": ("exported", "each export traces the whole program again"),
}
_FIXES = {
    "torch.compile": (
        "Apply torch.compile once — at module level, as a decorator, or in __init__ (`self.model = "
        "torch.compile(model)`) — and call the compiled function or module in the loop."
    ),
    "torch.jit.trace": "Trace once (at start-up or in __init__) and call the traced module in the loop; or torch.jit.save it once and torch.jit.load it at start-up.",
    "torch.jit.script": "Script once (at start-up, in __init__ or as a decorator) and call the scripted function in the loop.",
    "torch.export.export": "Export once and reuse the ExportedProgram (`ep.module()`), or torch.export.save it once and torch.export.load it at start-up.",
}


def recreated_fix(api: str) -> str:
    """GL502's fix for ``api`` (``torch.jit.trace_module`` is ``torch.jit.trace``'s)."""
    return _FIXES[api if api in _FIXES else "torch.jit.trace"]


@dataclass(slots=True)
class Made:
    """What one line made with one api: per target, how many."""

    site: Frame
    api: str
    definition: Frame | None = None
    name: str = ""
    targets: dict[Hashable, int] = field(default_factory=dict)  # target key -> count


def made(
    sites: dict[tuple[tuple[str, int], str], Made], site: Frame, definition: Frame | None, name: str, api: str,
    target: Hashable,
) -> None:
    entry = sites.get((site[:2], api))
    if entry is None:
        entry = sites[(site[:2], api)] = Made(site, api, definition, name)
    entry.targets[target] = entry.targets.get(target, 0) + 1


def remade(entry: Made, limit: int) -> tuple[str, str] | None:
    """(message, fix) when ``entry`` made the same target more than ``limit`` times."""
    times = max(entry.targets.values())
    if times <= limit:
        return None
    verb, cost = _MADE[entry.api]
    others = len(entry.targets) - 1
    also = f" (and {others} other {'targets' if others > 1 else 'target'})" if others else ""
    return f"this line {verb} `{entry.name}` {times} times{also}: {cost}", _FIXES[entry.api]


# -- GL506: graph breaks ------------------------------------------------------------------------------
#: graph breaks the user asked for: never reported
INTENTIONAL = ("torch._dynamo.graph_break()", "torch.compiler.disable", "torch._dynamo.disable", "skip_frame")


def break_said(reason: str, explanation: str) -> str:
    """dynamo's explanation of a graph break in one clause (its headline when it has none)."""
    text = re.sub(r"\s*\(has_kwargs \w+\)", "", explanation or reason).strip().rstrip(".")
    return text[:1].lower() + text[1:] if text.startswith("Dynamo ") else text


PRINT_FIX = (
    "Move the print or log call out of the compiled function (print what it returns after the call), or "
    "let dynamo defer it to after the graph: `torch._dynamo.config.reorderable_logging_functions.add(print)`."
)
SCALAR_FIX = (
    "Keep the value a tensor inside the compiled function (`loss.detach()` rather than `loss.item()`; "
    "`torch.where` rather than an if on it) and read it after the call, or set "
    "`torch._dynamo.config.capture_scalar_outputs = True`."
)
CONVERT_FIX = "Keep it a tensor inside the compiled function and convert it after the call returns."
BRANCH_FIX = (
    "Make the branch a tensor operation (`torch.where(cond, a, b)`, or `torch.cond(pred, true_fn, "
    "false_fn, (x,))`), or take the `if` out of the compiled function."
)
LOGGING_FIX = (
    "Log outside the compiled function (log what it returns after the call), or let dynamo skip the call: "
    "`torch._dynamo.config.ignore_logging_functions.add(logger.info)`."
)


def break_fix(reason: str, explanation: str, hints: tuple) -> str:
    text = f"{reason} {explanation}"
    if "`print`" in text or any("reorderable_logging_functions" in h for h in hints):
        return PRINT_FIX
    if "logging.Logger" in text:
        return LOGGING_FIX
    if "Tensor.item()" in text or "capture_scalar_outputs" in text:
        return SCALAR_FIX
    if "tolist()" in text or ".numpy()" in text or "numpy" in reason.lower():
        return CONVERT_FIX
    if "Data-dependent branching" in text or "data-dependent" in text.lower():
        return BRANCH_FIX
    useful = [h for h in hints if "report an issue" not in h.lower() and "caused by an earlier graph break" not in h]
    if useful:
        return f"dynamo's hint: {useful[0]}"
    return "Move what dynamo cannot trace out of the compiled function, into the code that calls it."
