"""What the ``tf.function`` and ``jax.jit`` probes share: the user's function a wrapper wraps
(its ``def`` line, its name) and the bookkeeping of the functions they watch — each created,
traced and released — so both fire the same events the same way."""

from __future__ import annotations

import itertools
import weakref
from typing import TYPE_CHECKING, Any, Callable

from graphlint.dispatch import Hooks
from graphlint.stacks import Frame, is_user_file

if TYPE_CHECKING:
    from graphlint.events import Argument, Guard


def definition(python_function: object) -> Frame | None:
    """The user's ``def`` line of the function a wrapper wraps, if it is user code."""
    fn = python_function
    for _ in range(8):
        wrapped = getattr(fn, "__wrapped__", None)  # functools.wraps: the decorated function
        if callable(wrapped):
            fn = wrapped
            continue
        code = getattr(fn, "__code__", None)
        if code is not None:
            if is_user_file(code.co_filename):
                return Frame(code.co_filename, code.co_firstlineno, code.co_name)
            return None
        nxt = getattr(fn, "__func__", None) or getattr(fn, "func", None) or getattr(fn, "__wrapped__", None)
        if nxt is None:
            nxt = getattr(type(fn), "__call__", None)
            if nxt is None or nxt is fn:
                return None
        fn = nxt
    return None


def display_name(python_function: object, fallback: str) -> str:
    fn = python_function
    for _ in range(4):
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
        if isinstance(name, str):
            return name
        fn = getattr(fn, "__func__", None) or getattr(fn, "func", None)
        if fn is None:
            break
    return type(python_function).__name__ if fallback == "function" else fallback


class FunctionInfo:
    """A watched function: its event id, name, ``def`` line, how often it was traced, and
    ``handle``, what tells its traces apart (a weak reference to the ``tf.function``, JAX's
    ``PjitInfo``: never a user object)."""

    __slots__ = ("fid", "name", "definition", "handle", "traces", "input_signature", "reduce_retracing")

    def __init__(
        self, fid: int, name: str, definition: Frame | None, handle: Any, input_signature: bool = False,
        reduce_retracing: bool = False,
    ) -> None:
        self.fid = fid
        self.name = name
        self.definition = definition
        self.handle = handle
        self.traces = 0
        self.input_signature = input_signature
        self.reduce_retracing = reduce_retracing


#: Every watched function's ``function_id``, whichever probe watches it: one int per function
#: in the process, so that a rule keeping TensorFlow's and JAX's functions apart needs no more.
_function_ids = itertools.count(1)


class WatchedFunctions:
    """Mixin for a :class:`~graphlint.probes._base.Probe`: the functions it watches, by a key
    every trace of them carries (TensorFlow's function cache, JAX's ``PjitInfo``)."""

    framework = ""  # the event's ``framework``

    # What the Probe it is mixed into provides (graphlint.probes._base.Probe)
    hook: Hooks
    _fire: Callable[..., None]
    _fire_release: Callable[..., None]
    # What the probe itself sets up: key -> the function watched under it
    _functions: dict[int, FunctionInfo]

    @staticmethod
    def _new_id() -> int:
        """A ``function_id`` no other watched function has (in any probe)."""
        return next(_function_ids)

    def _watch(
        self, key: int, function: object, info: FunctionInfo, site: Frame | None, by_user: bool,
        api: str | None = None, target: object = None,
    ) -> None:
        """Watch ``function`` (released with it) and fire ``graphlint_function_created``."""
        self._functions[key] = info
        try:
            fin = weakref.finalize(function, self._function_released, key, info.fid)
            fin.atexit = False
        except TypeError:  # pragma: no cover - a function that takes no weak reference
            pass
        self._fire(
            self.hook.graphlint_function_created,
            function_id=info.fid,
            name=info.name,
            definition_site=info.definition,
            site=site,
            by_user=by_user,
            framework=self.framework,
            api=api,
            target=target,
        )

    def _function_released(self, key: int, fid: int) -> None:
        info = self._functions.get(key)
        if info is not None and info.fid == fid:
            del self._functions[key]
        self._fire_release(self.hook.graphlint_function_released, function_id=fid)

    def _fire_traced(
        self, info: FunctionInfo, arguments: tuple[Argument, ...], site: Frame | None, ahead_of_time: bool = False,
        guard: Guard | None = None, trace_count: int | None = None,
    ) -> None:
        """Count a trace of a watched function and fire ``graphlint_function_traced``
        (``ahead_of_time``: asked for by ``get_concrete_function``, not by a call; ``guard`` and
        ``trace_count``: dynamo's failed guard and compile count, for a torch.compile frame)."""
        info.traces += 1
        self._fire(
            self.hook.graphlint_function_traced,
            function_id=info.fid,
            name=info.name,
            definition_site=info.definition,
            site=site,
            arguments=arguments,
            trace_count=info.traces if trace_count is None else trace_count,
            input_signature=info.input_signature,
            reduce_retracing=info.reduce_retracing,
            ahead_of_time=ahead_of_time,
            guard=guard,
        )
