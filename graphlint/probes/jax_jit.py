"""Probe for JAX: ``jax.jit`` functions made by the user's code, and each trace of them.

It fires the same events as the ``tf.function`` probe (``graphlint_function_created`` with
``framework="jax"``, ``graphlint_function_traced``, ``graphlint_function_released``), so GL501
and GL502 judge JAX programs with the rules that judge TensorFlow ones. Two internals are
wrapped: ``pjit.make_jit``, which every ``jax.jit(...)`` goes through, and ``pjit._trace_for_jit``,
which runs only when a call misses JAX's trace cache — a call that reuses a trace runs in
JAX's C++ dispatch path and never reaches graphlint. Jitted functions that JAX or another
library makes for itself are not watched. Installed only once the program has imported JAX.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator

from graphlint.events import ITEMS_MAX, Argument, shape_text, summarize
from graphlint.probes._base import Probe
from graphlint.probes._functions import FunctionInfo, WatchedFunctions, definition, display_name
from graphlint.probes.patching import WRAPPER_FILENAME, unwound
from graphlint.stacks import frame_of, is_user_file, user_site_from, walk_out

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import FrameType

    from graphlint.dispatch import Hooks

__tracebackhide__ = True

_SCALARS = (bool, int, float, complex)
#: The files between the user's ``jax.jit(...)`` and ``make_jit``.
_API_FILES = tuple(
    os.sep + os.path.join("jax", "_src", name) for name in ("api.py", "traceback_util.py", "pjit.py")
) + (os.sep + os.path.join("jax", "experimental", "pjit.py"),)


def _jax_dirs() -> tuple[str, ...]:
    dirs: list[str] = []
    for name in ("jax", "jaxlib"):
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path:
            dirs.append(os.path.dirname(os.path.abspath(path)) + os.sep)
    return tuple(dirs)


def _aval_text(value: object) -> tuple[tuple[int | str, ...], str] | None:
    """(shape, dtype) as JAX's tracing sees ``value``: ``"float32 (weak)"`` for a Python scalar."""
    from jax._src.core import shaped_abstractify

    try:
        aval = shaped_abstractify(value)
    except Exception:  # not an array-like leaf
        return None
    shape, dtype = getattr(aval, "shape", None), getattr(aval, "dtype", None)
    if shape is None or dtype is None:
        return None
    dims = tuple(d if isinstance(d, int) else str(d) for d in shape)
    return dims, str(dtype) + (" (weak)" if getattr(aval, "weak_type", False) else "")


def _leaf_text(value: object) -> str:
    aval = _aval_text(value)
    if aval is None:
        return summarize("", value).describe()
    return f"{aval[1]} {shape_text(aval[0])}"


def summarize_dynamic(name: str, value: Any) -> Argument:
    """A traced (non-static) argument as JAX's trace cache tells it apart: shape, dtype and weak
    type of each array leaf, and the structure around them — never the values."""
    kind = type(value)
    if kind in (list, tuple, dict):
        items = list(value.items()) if kind is dict else list(enumerate(value))
        parts = [
            (f"{key!r}: " if kind is dict else "") + _leaf_text(item) for key, item in items[:ITEMS_MAX]
        ]
        more = ", …" if len(items) > ITEMS_MAX else ""
        return Argument(name, "structure", kind.__name__, value=f"[{len(items)}: {', '.join(parts)}{more}]")
    if value is None:
        return summarize(name, value)
    aval = _aval_text(value)
    if aval is not None:
        return Argument(name, "tensor", kind.__name__ if kind in _SCALARS else "array", shape=aval[0], dtype=aval[1])
    try:
        import jax

        leaves = jax.tree_util.tree_leaves(value)
    except Exception:
        return summarize(name, value)
    parts = [_leaf_text(leaf) for leaf in leaves[:ITEMS_MAX]]
    more = ", …" if len(leaves) > ITEMS_MAX else ""
    return Argument(name, "structure", kind.__name__, value=f"[{len(leaves)}: {', '.join(parts)}{more}]")


def _arguments(ji: Any, args: Sequence[Any] | None, kwargs: Mapping[Any, Any] | None) -> tuple[Argument, ...]:
    signature = getattr(ji, "fun_signature", None)
    names: list[str] = []
    if signature is not None:
        for p in signature.parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                names.append(p.name)
    static_nums = set(getattr(ji, "static_argnums", ()) or ())
    static_names = set(getattr(ji, "static_argnames", ()) or ())
    out: list[Argument] = []
    count = len(args or ())
    for i, value in enumerate(args or ()):
        name = names[i] if i < len(names) else f"args[{i}]"
        static = i in static_nums or (i - count) in static_nums or name in static_names
        out.append(summarize(name, value) if static else summarize_dynamic(name, value))
    for key, value in (kwargs or {}).items():
        key = str(key)
        out.append(summarize(key, value) if key in static_names else summarize_dynamic(key, value))
    return tuple(out)


class JaxProbe(WatchedFunctions, Probe):
    """Watches the ``jax.jit`` functions the user's code makes, and their traces."""

    name = "jax-jit"
    library = "JAX"
    framework = "jax"

    def __init__(self, hook: Hooks, warn: Callable[[str], None] | None = None) -> None:
        super().__init__(hook, warn)
        # id(PjitInfo) -> info; the PjitInfo JAX passes to every trace of the function is the
        # info's handle (no user object)
        self._functions: dict[int, FunctionInfo] = {}
        self._dirs: tuple[str, ...] = ()

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        self._dirs = _jax_dirs() + (WRAPPER_FILENAME,)
        return [("jax.jit creation", self._patch_make_jit), ("jax.jit tracing", self._patch_tracing)]

    def forget(self) -> None:
        self._functions.clear()

    # -- creation --------------------------------------------------------------------------
    def _patch_make_jit(self) -> None:
        from jax._src import pjit

        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def make_jit(fun: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    jitted = original(fun, *args, **kwargs)
                    if probe.active:
                        probe.guarded("jit created", probe._created, fun, jitted, sys._getframe(1))
                    return jitted
                except BaseException as exc:
                    unwound(exc)
                    raise

            return make_jit

        self.patcher.patch(pjit, "make_jit", wrap)

    def _created(self, fun: Any, jitted: Any, caller: FrameType) -> None:
        # The user's own jax.jit(...) reaches make_jit through jax.jit (and its API-boundary
        # wrapper) only; any other JAX frame in between means JAX made it for itself (the
        # jitted helpers behind jnp.ones, .at[].set, ...).
        dirs = self._dirs

        def api(frame: FrameType) -> bool:  # between the user's call and make_jit
            filename = frame.f_code.co_filename
            return filename.startswith(dirs) and (filename.endswith(_API_FILES) or filename == WRAPPER_FILENAME)

        frame = walk_out(caller, api)
        if frame is None or frame.f_code.co_filename.startswith(dirs):
            return  # JAX made it for itself
        if not is_user_file(frame.f_code.co_filename):
            return  # made by another library
        ji = getattr(jitted, "_jit_info", None)
        if ji is None:
            return
        info = FunctionInfo(self._new_id(), display_name(fun, "function"), definition(fun), ji)
        self._watch(id(ji), jitted, info, frame_of(frame), by_user=True)

    # -- tracing ---------------------------------------------------------------------------
    def _patch_tracing(self) -> None:
        from jax._src import pjit

        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def _trace_for_jit(fun: Any, ji: Any, *rest: Any, **kw: Any) -> Any:
                try:
                    if probe.active:
                        probe.guarded("jit traced", probe._traced, ji, rest, kw, sys._getframe(1))
                    return original(fun, ji, *rest, **kw)
                except BaseException as exc:
                    unwound(exc)
                    raise

            return _trace_for_jit

        self.patcher.patch(pjit, "_trace_for_jit", wrap)

    def _traced(self, ji: Any, rest: tuple[Any, ...], kw: dict[str, Any], caller: FrameType) -> None:
        info = self._functions.get(id(ji))
        if info is None or info.handle is not ji:
            return
        # _trace_for_jit(fun, ji, ctx_mesh, dbg, avals, args, kwargs)
        args = kw.get("args", rest[3] if len(rest) > 3 else ())
        kwargs = kw.get("kwargs", rest[4] if len(rest) > 4 else {})
        self._fire_traced(info, _arguments(ji, args, kwargs), user_site_from(caller))


@contextlib.contextmanager
def counting_traces(jitted: object) -> Iterator[list[int]]:
    """Count the traces of the ``jax.jit`` function ``jitted`` in the block: ``counter[0]``.

    Works with or without graphlint's probes installed (it wraps the same internal for the
    block only)."""
    from jax._src import pjit

    ji = getattr(jitted, "_jit_info", None)
    if ji is None:
        raise TypeError(f"not a jax.jit function: {type(jitted).__name__}")
    counter = [0]
    original = pjit._trace_for_jit

    def _trace_for_jit(fun: Any, info: Any, *rest: Any, **kw: Any) -> Any:
        if info is ji:
            counter[0] += 1
        return original(fun, info, *rest, **kw)

    pjit._trace_for_jit = _trace_for_jit
    try:
        yield counter
    finally:
        if pjit._trace_for_jit is _trace_for_jit:
            pjit._trace_for_jit = original


def is_jitted(fn: object) -> bool:
    """Whether ``fn`` is a ``jax.jit`` function (without importing JAX)."""
    return "jax" in sys.modules and hasattr(fn, "_jit_info") and hasattr(fn, "lower")
