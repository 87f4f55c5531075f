"""Counting torch.compile's compiles of one compiled function or module, for
``graphlint.assert_max_traces``: with or without graphlint's probes installed (it wraps dynamo's
``convert_frame._compile`` for the block only, as the probe does for the run)."""

from __future__ import annotations

import contextlib
import inspect
import sys
from typing import TYPE_CHECKING, Any, Iterator

from graphlint.probes._base import internal_error_line

if TYPE_CHECKING:
    from types import CodeType


def compiled_code(compiled: object) -> CodeType | None:
    """The code object torch.compile's dynamo compiles for ``compiled`` (a function or module
    ``torch.compile`` returned), or ``None``."""
    original = getattr(compiled, "_torchdynamo_orig_callable", None)
    module = getattr(compiled, "_orig_mod", None)
    if module is None and getattr(compiled, "_compiled_call_impl", None) is not None:
        module = compiled  # nn.Module.compile(), in place
    if module is not None:
        original = getattr(type(module), "forward", None)
    for _ in range(8):
        inner = getattr(original, "__wrapped__", None) or getattr(original, "__func__", None)
        if inner is None:
            break
        original = inner
    return getattr(original, "__code__", None)


def is_compiled(fn: object) -> bool:
    """Whether ``fn`` is what ``torch.compile`` returns (without importing torch)."""
    return (
        getattr(fn, "_torchdynamo_orig_callable", None) is not None
        or (hasattr(fn, "_orig_mod") and hasattr(fn, "dynamo_ctx"))
        or getattr(fn, "_compiled_call_impl", None) is not None
    )


def _hooks_of(compiled: object) -> object:
    """The ``Hooks`` of the torch.compile call that made ``compiled`` (each call has its own)."""
    ctx = getattr(compiled, "dynamo_ctx", None)
    fn = getattr(compiled, "_compiled_call_impl", None) or compiled
    if ctx is None:
        cells = dict(zip(getattr(getattr(fn, "__code__", None), "co_freevars", ()), getattr(fn, "__closure__", None) or ()))
        try:
            ctx = cells["self"].cell_contents if "self" in cells else None
        except ValueError:
            ctx = None
    return getattr(ctx, "_hooks", None)


@contextlib.contextmanager
def counting_compiles(compiled: object) -> Iterator[list[int]]:
    """Count dynamo's compiles of the function or module ``compiled`` in the block: of its own
    frame (``forward`` for a module; for a module of torch's own, the frame dynamo wraps its call
    in), not of the frames that resume it after a graph break: ``counter[0]``.

    Works with or without graphlint's probes installed (it wraps the same internal for the
    block only)."""
    from torch._dynamo import convert_frame, external_utils

    code, hooks = compiled_code(compiled), _hooks_of(compiled)
    if code is None and hooks is None:
        raise TypeError(f"not a torch.compile function or module: {type(compiled).__name__}")
    wrapper_file = external_utils.__file__
    counter = [0]
    original = convert_frame._compile
    signature = inspect.signature(original)
    said: list[BaseException] = []

    def _compile(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)  # (the recompile limit raises: not a compile)
        try:
            bound = signature.bind(*args, **kwargs).arguments
            frame_code = bound["code"]
            if frame_code is code or (bound.get("hooks") is hooks and frame_code.co_filename == wrapper_file):
                counter[0] += 1
        except Exception as exc:  # never break the program's compile; said once
            if not said:
                said.append(exc)
                print(internal_error_line("compile counter", "compile", exc), file=sys.stderr)
        return result

    convert_frame._compile = _compile
    try:
        yield counter
    finally:
        if convert_frame._compile is _compile:
            convert_frame._compile = original
