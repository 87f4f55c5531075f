"""Probe for the PyTorch calls that make a compiled function or module: ``torch.compile``,
``torch.jit.trace``/``trace_module``, ``torch.jit.script`` and ``torch.export.export``.

Each call from the user's code fires ``graphlint_function_created`` (``framework="torch"``)
with the ``api`` that made it and a ``target``, a plain key of what it was applied to: the same
function code (a module-level function, or a lambda or nested ``def`` made afresh on each call)
or the same ``nn.Module`` object gives the same key, a new module object a new one. GL502 counts
them per line. Only public functions are wrapped, each called once per compile, never per step;
calls that torch or another library make for itself are not the user's (``by_user`` false).
Installed once the program has imported torch; dynamo's compiles are :mod:`torch_dynamo`'s.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import os
import sys
import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable

from graphlint.probes._base import Probe
from graphlint.probes._functions import FunctionInfo, WatchedFunctions, definition, display_name
from graphlint.probes.patching import WRAPPER_FILENAME, unwound
from graphlint.stacks import Frame, is_user_file, walk_out

if TYPE_CHECKING:
    from types import CodeType, FrameType

    from graphlint.dispatch import Hooks

__tracebackhide__ = True

#: (module path under torch, attribute, the api as findings name it)
_APIS = (
    ("", "compile", "torch.compile"),
    ("jit", "trace", "torch.jit.trace"),
    ("jit", "trace_module", "torch.jit.trace"),
    ("jit", "script", "torch.jit.script"),
    ("export", "export", "torch.export.export"),
)


class TorchApiProbe(WatchedFunctions, Probe):
    """Watches the compiled functions and modules the user's code makes."""

    name = "torch-api"
    library = "torch"
    framework = "torch"

    def __init__(self, hook: Hooks, warn: Callable[[str], None] | None = None) -> None:
        super().__init__(hook, warn)
        self._functions: dict[int, FunctionInfo] = {}
        self._tokens: weakref.WeakKeyDictionary[object, int] = weakref.WeakKeyDictionary()  # target -> key
        self._next_token = itertools.count(1)
        self._torch_dir = ""
        self._inside = threading.local()  # in a watched call: the calls it makes are torch's own

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        import torch

        self._torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
        return [(api, functools.partial(self._patch, where, attr, api)) for where, attr, api in _APIS]

    def forget(self) -> None:
        self._functions.clear()
        self._tokens = weakref.WeakKeyDictionary()

    def _patch(self, where: str, attr: str, api: str) -> None:
        import importlib

        owner = importlib.import_module(f"torch.{where}" if where else "torch")
        original = getattr(owner, attr)
        # torch.jit.script resolves names in the frame `_frames_up` above its caller: one more
        # for this wrapper's own frame, so that it still finds the user's.
        frames_up = "_frames_up" in inspect.signature(original).parameters
        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def made(*args: Any, **kwargs: Any) -> Any:
                try:
                    inside = probe._inside
                    if not probe.active or getattr(inside, "busy", False):
                        return original(*args, **kwargs)  # (jit.trace checks its trace by tracing again)
                    if frames_up:
                        if len(args) > 2:
                            args = (*args[:2], args[2] + 1, *args[3:])
                        else:
                            kwargs = {**kwargs, "_frames_up": kwargs.get("_frames_up", 0) + 1}
                    inside.busy = True
                    try:
                        result = original(*args, **kwargs)
                    finally:
                        inside.busy = False
                    target = args[0] if args else kwargs.get("model", kwargs.get("obj", kwargs.get("mod", kwargs.get("func"))))
                    if target is not None and probe.active:
                        probe.guarded(api, probe._made, api, target, result, sys._getframe(1))
                    return result
                except BaseException as exc:
                    unwound(exc)
                    raise

            made.__name__ = attr
            return made

        self.patcher.patch(owner, attr, wrap)

    def _made(self, api: str, target: object, result: object, frame: FrameType) -> None:
        if result is target:
            return  # nothing was made (torch.compile(disable=True), scripting turned off)
        found = walk_out(frame, lambda f: f.f_code.co_filename.startswith(self._torch_dir) or f.f_code.co_filename == WRAPPER_FILENAME)
        by_user = found is not None and is_user_file(found.f_code.co_filename)
        site = Frame(found.f_code.co_filename, found.f_lineno, found.f_code.co_name) if found is not None and by_user else None
        import torch

        module = target if isinstance(target, torch.nn.Module) else getattr(target, "__self__", None)
        if isinstance(module, torch.nn.Module):
            cls = type(module)
            name, wrapped = cls.__qualname__, getattr(cls, "forward", None)
            key = module
        else:
            name, wrapped = display_name(target, "function"), target
            key = _code_of(target)
        fid = self._new_id()
        info = FunctionInfo(fid, name, definition(wrapped) if wrapped is not None else None, None)
        self._watch(fid, result, info, site, by_user, api=api, target=self._token(key))

    def _token(self, key: object) -> int | None:
        """The same small int for the same code object or module while it lives."""
        if key is None:
            return None
        try:
            token = self._tokens.get(key)
            if token is None:
                token = self._tokens[key] = next(self._next_token)
            return token
        except TypeError:  # unhashable (a module defining __eq__) or no weak reference
            return None


def _code_of(fn: object) -> CodeType | None:
    for _ in range(8):
        code = getattr(fn, "__code__", None)
        if code is not None:
            return code
        fn = getattr(fn, "__wrapped__", None) or getattr(fn, "__func__", None) or getattr(fn, "func", None)
        if fn is None:
            return None
    return None
