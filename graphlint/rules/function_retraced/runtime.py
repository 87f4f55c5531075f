"""GL501's runtime form: every trace of every function, with the arguments of the call that caused it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from graphlint.events import Argument, Guard
from graphlint.findings import FindingSink, Severity
from graphlint.rules import _jax, _torch
from graphlint.rules.function_retraced import FunctionRetraced
from graphlint.stacks import Frame


_TRACES_KEPT = 64  # argument summaries remembered per function (the count goes on)


_SHOWN = 4  # values shown per changing argument


class _Traces:
    __slots__ = ("name", "definition", "calls", "count", "reduce_retracing", "input_signature", "framework", "guard", "limit")

    def __init__(
        self, name: str, definition: Frame | None, reduce_retracing: bool, input_signature: bool,
        framework: str = "tensorflow",
    ) -> None:
        self.framework = framework
        self.name = name
        self.definition = definition
        self.calls: list[tuple[Frame | None, tuple[Argument, ...]]] = []  # (site, arguments) per trace
        self.count = 0
        self.reduce_retracing = reduce_retracing
        self.input_signature = input_signature
        self.guard: Guard | None = None  # torch: dynamo's last failed guard
        self.limit: tuple[Frame | None, int, int | None, str] | None = None  # torch: (site, compiles, limit, limit_type) once dynamo stopped compiling it


def _changes(calls: Sequence[tuple[Frame | None, tuple[Argument, ...]]]) -> list[tuple[str, str, list[Argument]]]:
    """(description, cause, summaries) for each argument whose summary changed between traces."""
    order: list[str] = []
    seqs: dict[str, list[Argument]] = {}
    for _, arguments in calls:
        for arg in arguments:
            if arg.name not in seqs:
                order.append(arg.name)
                seqs[arg.name] = []
            seqs[arg.name].append(arg)
    out = []
    for name in order:
        seq = seqs[name]
        if len({a.key for a in seq}) <= 1:
            continue
        kinds = {a.kind for a in seq}
        types = {a.type for a in seq}
        if kinds == {"tensor"}:
            if len({a.dtype for a in seq}) > 1:
                cause, parts = "dtype", [str(a.dtype) for a in seq]
            else:
                from graphlint.events import shape_text

                cause, parts = "shape", [shape_text(a.shape) for a in seq]
            text = f"`{name}` {cause} " + _arrow(parts)
        elif kinds == {"python"} and len(types) == 1:
            cause = "value"
            text = f"`{name}` ({next(iter(types))}) " + _arrow([str(a.value) for a in seq])
            values = len({a.key for a in seq})
            if values > len({a.value for a in seq}):  # shortened alike, yet different values
                text += f" ({values} different values)"
        elif kinds == {"object"} and len(types) == 1:
            cause = "object"
            n = len({a.identity for a in seq})
            text = f"`{name}` is a new `{next(iter(types))}` object at each trace ({n} objects)"
        elif kinds == {"structure"}:
            cause = "structure"
            text = f"`{name}` " + _arrow([str(a.value) for a in seq])
        else:
            cause = "type"
            text = f"`{name}` " + _arrow([a.describe() for a in seq])
        out.append((text, cause, seq))
    return out


def _sweep(changes: Sequence[tuple[str, str, list[Argument]]]) -> bool:
    """A loop over fixed sets of tensor types, as a test runs every dtype with every shape: only
    tensors changed, in two or more ways (a dtype and a shape count apart), and every value of
    each comes back in a later trace. Growth never revisits a shape (a longer batch); Python
    values (step counters, learning rates) are judged as they are, even when they repeat."""
    varying: list[list[str]] = []
    for _, _, seq in changes:
        if {a.kind for a in seq} != {"tensor"}:
            return False
        parts = [[str(a.dtype) for a in seq], [repr(a.shape) for a in seq]]
        varying.extend(values for values in parts if len(set(values)) > 1)
    return len(varying) >= 2 and all(min(Counter(values).values()) >= 2 for values in varying)


def _arrow(parts: list[str]) -> str:
    """``a → b → c → …`` over the values in trace order, repeats next to each other merged."""
    steps: list[str] = []
    for part in parts:
        if not steps or steps[-1] != part:
            steps.append(part)
    distinct = len(set(steps))
    shown = " → ".join(steps[:_SHOWN]) + (" → …" if len(steps) > _SHOWN else "")
    return shown + (f" ({distinct} distinct)" if len(steps) > _SHOWN else "")


def _fix(changes: Sequence[tuple[str, str, list[Argument]]], state: _Traces) -> str:
    fixes = []
    by_cause: dict[str, list[list[Argument]]] = {}
    for _, cause, seq in changes:
        by_cause.setdefault(cause, []).append(seq)
    names = lambda cause: ", ".join(f"`{seq[0].name}`" for seq in by_cause[cause])  # noqa: E731
    if "value" in by_cause:
        fixes.append(
            f"Pass {names('value')} as a tensor (e.g. `tf.constant(value)`): every new value of a "
            "Python argument is a new trace."
        )
    if "shape" in by_cause:
        specs = []
        for seq in by_cause["shape"]:
            dims = [a.shape for a in seq if a.shape is not None]
            if dims and len({len(d) for d in dims}) == 1:
                general = [d0 if all(d[i] == d0 for d in dims) else None for i, d0 in enumerate(dims[0])]
                shape = "[" + ", ".join("None" if d is None else str(d) for d in general) + "]"
                specs.append(f"tf.TensorSpec({shape}, tf.{seq[0].dtype})")
            else:
                specs.append(f"tf.TensorSpec(None, tf.{seq[0].dtype})")
        how = f"input_signature=[{', '.join(specs)}]"
        if state.reduce_retracing:
            fixes.append(f"Declare the dimensions that vary as None with {how}.")
        else:
            fixes.append(f"Declare the dimensions that vary as None with {how}, or use reduce_retracing=True.")
    if "dtype" in by_cause:
        fixes.append(f"Convert {names('dtype')} to one dtype before the call (e.g. `tf.cast(x, tf.float32)`).")
    if "object" in by_cause:
        fixes.append(
            f"Create {names('object')} once and pass the same object, or pass the values it carries "
            "as tensors: tf.function tells Python objects apart by identity."
        )
    if "structure" in by_cause or "type" in by_cause:
        which = ", ".join(f"`{seq[0].name}`" for c in ("structure", "type") for seq in by_cause.get(c, []))
        fixes.append(f"Always pass {which} as tensors of one structure (e.g. `tf.constant(...)`).")
    return " ".join(fixes)


class Runtime(FunctionRetraced):
    """FunctionRetraced at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.functions: dict[int, _Traces] = {}
        self.framework_of: dict[int, str] = {}  # function id -> framework, for the ones not TensorFlow's

    def graphlint_function_traced(
        self, function_id: int, name: str, definition_site: Frame | None, site: Frame | None,
        arguments: tuple[Argument, ...], reduce_retracing: bool, input_signature: bool, guard: Guard | None,
    ) -> None:
        # a guard is torch's: also when the frame's first compile was in an earlier scope (test)
        state = self._state(function_id, name, definition_site, reduce_retracing, input_signature, guard is not None)
        state.count += 1
        state.guard = guard or state.guard
        if len(state.calls) < _TRACES_KEPT:
            state.calls.append((site, arguments))

    def _state(
        self, function_id: int, name: str, definition_site: Frame | None, reduce_retracing: bool = False,
        input_signature: bool = False, torch: bool = False,
    ) -> _Traces:
        state = self.functions.get(function_id)
        if state is None:
            framework = "torch" if torch else self.framework_of.get(function_id, "tensorflow")
            state = self.functions[function_id] = _Traces(
                name, definition_site, reduce_retracing, input_signature, framework
            )
        return state

    def graphlint_recompile_limit_reached(
        self, function_id: int, name: str, definition_site: Frame | None, site: Frame | None, guard: Guard | None,
        compiles: int, limit: int | None, limit_type: str,
    ) -> None:
        """torch.compile: dynamo stopped compiling the frame (reported at error severity)."""
        state = self._state(function_id, name, definition_site, torch=True)
        state.guard = guard or state.guard
        state.limit = (site, compiles, limit, limit_type)

    def graphlint_function_created(self, function_id: int, framework: str) -> None:
        if framework != "tensorflow":
            self.framework_of[function_id] = framework

    def graphlint_function_released(self, function_id: int) -> None:
        self.framework_of.pop(function_id, None)
        self._judge(self.functions.pop(function_id, None))

    def graphlint_run_finished(self) -> None:
        for function_id in list(self.functions):
            self._judge(self.functions.pop(function_id, None))

    # -- judgement -------------------------------------------------------------------------
    def _judge(self, state: _Traces | None) -> None:
        limit = self.config["max-traces"]
        if state is None or (state.count <= limit and state.limit is None):
            return
        site = state.limit[0] if state.limit else None
        site = site or (state.calls and state.calls[min(limit, len(state.calls) - 1)][0]) or next(
            (s for s, _ in state.calls if s is not None), None
        )
        if site is None:
            return
        changes = _changes(state.calls)
        if state.limit is None:  # reaching torch's limit is reported whatever changed
            if changes and all(len({a.key for a in seq}) <= 2 for _, _, seq in changes):
                return  # flags and optional arguments in combination: a bounded set of traces, on purpose
            if _sweep(changes):
                return  # every combination of a few fixed sets (dtypes x shapes), each value coming back
        name = f"`{state.name}()`"
        if state.framework == "torch":
            limited = state.limit[1:] if state.limit else None
            message, fix = _torch.recompiled(
                name, state.count, limit, changes, state.guard, limited, state.reduce_retracing
            )
            self.report(
                message, site, related=_related(state, site, name), fix=fix,
                severity=Severity.ERROR if state.limit else None,
            )
            return
        fix = _fix(changes, state) or self.fix
        if state.framework == "jax":
            what, fix = _jax.retraced(changes, _arrow)
        else:
            what = "; ".join(text for text, _, _ in changes)
        if changes:
            message = f"{name} was traced {state.count} times (limit {limit}); changed between traces: {what}"
        else:
            message = (
                f"{name} was traced {state.count} times (limit {limit}) with arguments that look "
                "the same: it is traced again in new contexts (devices, outer functions, variables created)"
            )
        self.report(message, site, related=_related(state, site, name), fix=fix or self.fix)


def _related(state: _Traces, site: Frame, name: str) -> list[tuple[Frame, str]]:
    related: list[tuple[Frame, str]] = []
    if state.definition is not None:
        related.append((state.definition, f"{name} is defined here"))
    others: list[Frame] = []
    for where, _ in state.calls:
        if where is not None and where[:2] != site[:2] and where[:2] not in {o[:2] for o in others}:
            others.append(where)
    again = "compiled again" if state.framework == "torch" else "retraced"
    related.extend((where, f"it is also {again} by this call") for where in others[:2])
    return related
