"""What the torch probes read from a frame dynamo compiles, as plain data: the arguments (a
tensor's shape, dtype and ``requires_grad``, a Python value, an object's identity), the guard
that failed (:class:`graphlint.events.Guard`) and the current value of what it guards.

The guarded value is looked up, never computed: names in the frame's locals, closure and
globals, attributes in an object's own ``__dict__`` (and an ``nn.Module``'s parameters, buffers
and submodules), items of a plain dict, list or tuple by a constant key. No property, no
``__getattr__`` and no other user code runs.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any

from graphlint.events import ITEMS_MAX, Argument, Guard, summarize

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import CodeType, FrameType

    from graphlint.stacks import Frame

#: dynamo's prefix of the code objects it makes to resume a frame after a graph break
#: (torch._dynamo.resume_execution.TORCH_DYNAMO_RESUME_IN_PREFIX)
RESUME_PREFIX = "torch_dynamo_resume_in_"
_RESUME = re.compile(r"^torch_dynamo_resume_in_(.+)_at_(\d+)$")
_COMPILE_ID = re.compile(r"^\[?[\d/!:-]+\]?:\s*")
_HINT = re.compile(r"\s*\(HINT:\s*(.*)\)\s*$", re.S)
_TENSOR = re.compile(r"^tensor '(.+?)' ")
_CALLED = re.compile(r"^(?:___check_obj_id|___check_type_id|len|type|id|___dict_contains)\((.+?)(?:,\s*[^,()]+)?\)")
_COMPARED = re.compile(r"^(.+?)\s+(?:==|!=|is not|is|<=|>=|<|>|in|not in)\s+")
_MISSING = object()


def frame_name(code: CodeType) -> str:
    """``Model.forward``; a resume function as the function it continues: ``forward``."""
    match = _RESUME.match(code.co_name)
    if match:
        return match.group(1)
    return getattr(code, "co_qualname", code.co_name)


def is_resume(code: CodeType) -> bool:
    return code.co_name.startswith(RESUME_PREFIX)


def calling_site(frame: FrameType, code: CodeType) -> Frame | None:
    """The user's line that called the compiled code: for a resume function (dynamo calls it from
    the frame it resumes), the line that called that frame."""
    from graphlint.stacks import Frame, is_user_file, walk_out

    resumed = resumed_name(code.co_name) if is_resume(code) else None

    def past(f: FrameType) -> bool:  # not the user's, or the frame the resume function resumes
        f_code = f.f_code
        return not is_user_file(f_code.co_filename) or (
            resumed is not None
            and f_code.co_filename == code.co_filename
            and (f_code.co_name == resumed or f_code.co_name.startswith(RESUME_PREFIX))
        )

    found = walk_out(frame, past)
    if found is None:
        return None
    return Frame(found.f_code.co_filename, found.f_lineno, found.f_code.co_name)


def resumed_name(name: str) -> str:
    """A frame's function name as the user wrote it (a resume function's: the one it resumes)."""
    match = _RESUME.match(name)
    return match.group(1) if match else name


def argument_names(code: CodeType) -> list[str]:
    """The frame's parameters (for a resume function: the user's locals it is given)."""
    count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    names = list(code.co_varnames[:count])
    if code.co_name.startswith(RESUME_PREFIX):
        names = [n for n in names if not n.startswith("__")]
    return names


def _tensor_text(value: Any) -> tuple[tuple[int, ...], str]:
    shape = tuple(int(d) for d in value.shape)
    dtype = str(value.dtype).replace("torch.", "")
    return shape, dtype + (" requires_grad" if value.requires_grad else "")


def summarize_value(name: str, value: Any, tensor_type: type) -> Argument:
    """One value as plain data; ``tensor_type`` is ``torch.Tensor``."""
    if isinstance(value, tensor_type):
        shape, dtype = _tensor_text(value)
        return Argument(name, "tensor", type(value).__name__, shape=shape, dtype=dtype)
    kind = type(value)
    if kind in (list, tuple, dict) and any(isinstance(v, tensor_type) for v in (value.values() if kind is dict else value)):
        items = list(value.items()) if kind is dict else list(enumerate(value))
        parts = []
        for key, item in items[:ITEMS_MAX]:
            if isinstance(item, tensor_type):
                shape, dtype = _tensor_text(item)
                text = f"{dtype} {shape}"
            else:
                text = summarize("", item).describe()
            parts.append(f"{key!r}: {text}" if kind is dict else text)
        more = ", …" if len(items) > ITEMS_MAX else ""
        return Argument(name, "structure", kind.__name__, value=f"[{len(items)}: {', '.join(parts)}{more}]")
    return summarize(name, value)


def parse_guard(reason: str) -> Guard:
    """dynamo's recompile reason (``0/7: self.step == 7  # self.step += 1  # f.py:19 in forward
    (HINT: ...)``) as a :class:`Guard`."""
    first = reason.strip().splitlines()[0] if reason.strip() else ""
    text = _COMPILE_ID.sub("", first, count=1)
    hint = None
    match = _HINT.search(text)
    if match:
        hint, text = match.group(1).strip(), text[: match.start()]
    text = re.split(r"\s+#\s", text, maxsplit=1)[0].strip()
    return Guard(text, _source(text), hint)


def _source(text: str) -> str | None:
    for pattern in (_TENSOR, _CALLED, _COMPARED):
        match = pattern.match(text)
        if match:
            return match.group(1).strip()
    return None


def display_source(source: str) -> str:
    """``G['scale']`` -> ``scale``, ``L['x']`` -> ``x``: the name the user wrote."""
    match = re.fullmatch(r"[GL]\[['\"](.+?)['\"]\]", source)
    return match.group(1) if match else source


def guarded_value(
    source: str, f_locals: Mapping[str, object] | None, code: CodeType, closure: Sequence[Any] | None,
    f_globals: Mapping[str, object] | None,
) -> object:
    """The current value of the guarded expression ``source``, or ``_MISSING``."""
    try:
        node = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError):
        return _MISSING
    scopes = {"locals": f_locals or {}, "globals": f_globals or {}, "cells": _cells(code, closure)}
    try:
        return _look_up(node, scopes)
    except Exception:  # anything unexpected: not a value graphlint can read
        return _MISSING


def _cells(code: CodeType, closure: Sequence[Any] | None) -> dict[str, object]:
    cells: dict[str, object] = {}
    for name, cell in zip(getattr(code, "co_freevars", ()), closure or ()):
        try:
            cells[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    return cells


def _look_up(node: ast.expr, scopes: Mapping[str, Mapping[Any, object]]) -> object:
    if isinstance(node, ast.Name):
        for scope in ("locals", "cells", "globals"):
            value = scopes[scope].get(node.id, _MISSING)
            if value is not _MISSING:
                return value
        return _MISSING
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        key = node.slice.value
        if isinstance(node.value, ast.Name) and node.value.id in ("G", "L"):
            return scopes["globals" if node.value.id == "G" else "locals"].get(key, _MISSING)
        container: Any = _look_up(node.value, scopes)  # (its exact type is asked below)
        if type(container) is dict:
            return container.get(key, _MISSING)
        if type(container) in (list, tuple) and isinstance(key, int) and -len(container) <= key < len(container):
            return container[key]
        return _MISSING
    if isinstance(node, ast.Attribute):
        owner = _look_up(node.value, scopes)
        if owner is _MISSING:
            return _MISSING
        return _own_attribute(owner, node.attr)
    return _MISSING


def _own_attribute(owner: object, attr: str) -> object:
    try:
        own = vars(owner)
    except TypeError:  # no __dict__ (slots, builtins)
        return _MISSING
    if attr in own:
        return own[attr]
    for registry in ("_parameters", "_buffers", "_modules"):  # nn.Module keeps these apart
        table = own.get(registry)
        if isinstance(table, dict):
            value = dict.get(table, attr, _MISSING)
            if value is not _MISSING:
                return value
    return _MISSING


def is_missing(value: object) -> bool:
    return value is _MISSING
