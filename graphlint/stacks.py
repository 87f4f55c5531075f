"""Where the user's code is on the call stack.

A frame is *user code* unless its file belongs to the standard library, an installed
package (site-packages: TensorFlow, Keras, numpy, absl, pytest...), graphlint itself, or is
synthetic (``<frozen ...>``, ``<string>``). Findings always point at user frames.
"""

from __future__ import annotations

import itertools
import os
import site
import sys
import sysconfig
from types import CodeType, FrameType
from typing import Any, Callable, Iterator, NamedTuple

_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _library_prefixes() -> tuple[str, ...]:
    prefixes = {_PKG_DIR}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            prefixes.add(os.path.realpath(path) + os.sep)
            prefixes.add(os.path.abspath(path) + os.sep)
    try:
        extra = list(site.getsitepackages()) + [site.getusersitepackages()]
    except AttributeError:  # virtualenv's old site.py
        extra = []
    for entry in extra + [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]:
        prefixes.add(os.path.realpath(entry) + os.sep)
        prefixes.add(os.path.abspath(entry) + os.sep)
    return tuple(sorted(prefixes))


_LIBRARY_PREFIXES = _library_prefixes()
_is_user: dict[str, bool] = {}


def is_user_file(filename: str) -> bool:
    """True when ``filename`` is the user's own code (cached per file name)."""
    try:
        return _is_user[filename]
    except KeyError:
        pass
    if not filename or filename.startswith("<") or "__autograph_generated_file" in filename:
        result = False  # synthetic code, and the files tf.function's autograph writes
    else:
        path = os.path.abspath(filename)
        result = not path.startswith(_LIBRARY_PREFIXES) and not os.path.realpath(path).startswith(
            _LIBRARY_PREFIXES
        )
    _is_user[filename] = result
    return result


def count_as_user(filename: str, user: bool = True) -> None:
    """From now on frames of ``filename`` are (``user``) or are not the user's own code,
    whatever its name says: code a host compiles under a synthetic name (IPython's
    ``<ipython-input-…>`` cells, ``%%time``'s ``<timed exec>`` while such a cell runs)."""
    _is_user[filename] = user


class Frame(NamedTuple):
    """One frame of user code: absolute file path, line, function name."""

    path: str
    line: int
    function: str


class Stack(NamedTuple):
    """The user's frames at one moment, outermost first, with an invocation id per frame.

    ``calls[i]`` identifies the invocation of ``frames[i]``'s function: two ops built in the
    same call of ``forecast()`` share it (in every iteration of a loop in it); the next call of
    ``forecast()`` gets a new one, even when CPython reuses the earlier frame's memory.
    """

    frames: tuple[Frame, ...]
    calls: tuple[int, ...]

    @property
    def site(self) -> Frame | None:
        return self.frames[-1] if self.frames else None

    @property
    def call(self) -> int:
        """The invocation id of the innermost frame (0 when there is none)."""
        return self.calls[-1] if self.calls else 0


_tokens = itertools.count(1)


class _Mark:
    """An invocation's identity, kept on the live frame itself (in its ``f_trace`` slot).

    It lives exactly as long as the frame, so a later call can never inherit it, even when
    CPython puts the new frame at the dead frame's address. The slot is only consulted while a
    tracer (``sys.settrace``) runs, and a frame whose slot is empty gets no local trace events;
    the mark answers any such event with itself and does nothing, so tracing is unchanged.

    ``outer`` caches the user's frames outside this one (a :class:`Stack`): the callers of a
    running function stay where they are for as long as it runs, so they are walked once per
    invocation, not once per op (never for a generator or coroutine, whose caller can change
    from one resumption to the next).
    """

    __slots__ = ("token", "lasti", "site", "outer", "__weakref__")

    def __init__(self, token: int, lasti: int, site: "Frame"):
        self.token, self.lasti, self.site = token, lasti, site
        self.outer: Stack | None = None

    def __call__(self, frame: FrameType, event: str, arg: Any) -> _Mark:
        return self


# Fallback for frames whose f_trace slot a tracer owns (a debugger, coverage.py):
# id(frame) -> (code, last instruction offset, invocation token, Frame at that offset);
# bounded by _LIVE_MAX. Best effort only: a dead frame's address can be reused.
_live: dict[int, tuple[object, int, int, "Frame"]] = {}
_LIVE_MAX = 50_000


_tuple_new = tuple.__new__  # builds a Frame/Stack without the NamedTuple's Python-level __new__
_gettrace = sys.gettrace
_getframe = sys._getframe
# Generators, coroutines, async generators: suspended and resumed, possibly by another caller.
_SUSPENDABLE = 0x20 | 0x80 | 0x100 | 0x200


# id(code) -> (code, {instruction offset: Frame}). CPython finds a frame's line by reading the
# code's line table from its start, so ``f_lineno`` costs microseconds deep in a long function
# or a module's top level, where model-building scripts build their ops: each offset is read
# once. And every call of a function shares one Frame per line: the stacks rules keep add no
# new objects for the garbage collector to walk again and again (a Frame, a tuple subclass,
# is never untracked as a plain tuple of strings and ints is).
_sites: dict[int, tuple[object, dict[int, Frame]]] = {}
_SITES_MAX = 10_000
# id(Frame) -> (the Frame, its code, its instruction offset): where in the line the call is,
# read only when a finding is reported there (:func:`position`); cleared with _sites.
_origins: dict[int, tuple[Frame, object, int]] = {}


def _site(frame: FrameType, code: CodeType, lasti: int, filename: str) -> Frame:
    entry = _sites.get(id(code))
    if entry is None or entry[0] is not code:
        if len(_sites) >= _SITES_MAX:
            _sites.clear()
            _origins.clear()
        entry = _sites[id(code)] = (code, {})
    table = entry[1]
    site = table.get(lasti)
    if site is None:
        site = table[lasti] = _tuple_new(Frame, (filename, frame.f_lineno, code.co_name))
        _origins[id(site)] = (site, code, lasti)
    return site


def position(site: Frame) -> tuple[int, int | None, int | None]:
    """``(column, end line, end column)`` of the call a user frame ``site`` was at (1-based
    columns, the end exclusive): the interpreter's own positions of the instruction (Python
    3.11+, ``code.co_positions()``, as tracebacks show them). ``(1, None, None)`` when they are
    not known (Python 3.10, a frame not captured here)."""
    origin = _origins.get(id(site))
    if origin is None or origin[0] is not site:
        return 1, None, None
    _, code, lasti = origin
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return 1, None, None
    try:
        line, end_line, col, end_col = next(itertools.islice(positions(), lasti // 2, None))
    except (StopIteration, ValueError):
        return 1, None, None
    if col is None or line != site.line:
        return 1, None, None
    return col + 1, end_line, None if end_col is None else end_col + 1


def _site_and_call(frame: FrameType, code: CodeType, filename: str) -> tuple[Frame, int]:
    """A user frame's :class:`Frame` and its invocation id.

    The id is the frame's for as long as it runs (every iteration of a loop in it included);
    each new call gets a new one. A frame still at the instruction it was last seen at reuses
    the Frame made then. Only when a tracer owns the frame's ``f_trace`` slot is the id
    guessed from the frame's address (a frame gone back to an earlier instruction, or a new
    one at a dead frame's address, then counts as a new call).
    """
    lasti = frame.f_lasti
    mark = frame.f_trace
    if type(mark) is _Mark:
        if mark.lasti == lasti:
            return mark.site, mark.token
        site = _site(frame, code, lasti, filename)
        mark.lasti, mark.site = lasti, site
        return site, mark.token
    site = _site(frame, code, lasti, filename)
    if mark is None and _gettrace() is None:
        token = next(_tokens)
        frame.f_trace = _Mark(token, lasti, site)
        return site, token
    key = id(frame)
    entry = _live.get(key)
    if entry is not None and entry[0] is code and entry[1] <= lasti:
        _live[key] = (code, lasti, entry[2], site)
        return site, entry[2]
    token = next(_tokens)
    if len(_live) >= _LIVE_MAX:
        _live.clear()
    _live[key] = (code, lasti, token, site)
    return site, token


def capture(depth: int = 1) -> Stack:
    """The user's frames above the caller's ``depth``-th frame, outermost first."""
    return _walk(_getframe(depth + 1))


def _user_frame(frame: FrameType | None) -> FrameType | None:
    """The first user frame from ``frame`` outwards (``frame`` itself included), or ``None``."""
    known = _is_user
    while frame is not None:
        filename = frame.f_code.co_filename
        user = known.get(filename)
        if user is None:
            user = is_user_file(filename)
        if user:
            return frame
        frame = frame.f_back
    return None


def _walk(frame: FrameType | None) -> Stack:
    """The user's frames from ``frame`` outwards, as a Stack (outermost first)."""
    frame = _user_frame(frame)
    if frame is None:
        return _EMPTY
    code = frame.f_code
    site, call = _site_and_call(frame, code, code.co_filename)
    outer = _outer(frame)
    return _tuple_new(Stack, (outer.frames + (site,), outer.calls + (call,)))


def _outer(frame: FrameType | None) -> Stack:
    """The user's frames outside the user frame ``frame``, cached on the marks of the frames
    walked (see :class:`_Mark`); walks only up to the first frame whose callers are known."""
    chain: list[tuple[FrameType, _Mark | None]] = []  # user frames from `frame` outwards, until one whose outer stack is known
    outer = _EMPTY
    while frame is not None:
        mark = frame.f_trace
        if type(mark) is not _Mark or frame.f_code.co_flags & _SUSPENDABLE:
            mark = None
        elif mark.outer is not None:
            outer = mark.outer
            if chain:  # this frame is a caller: it is part of the stack
                code = frame.f_code
                site, call = _site_and_call(frame, code, code.co_filename)
                outer = _tuple_new(Stack, (outer.frames + (site,), outer.calls + (call,)))
            break
        chain.append((frame, mark))
        frame = _user_frame(frame.f_back)
    for i in range(len(chain) - 1, -1, -1):
        frame, mark = chain[i]
        if mark is not None:
            mark.outer = outer
        if i:
            code = frame.f_code
            site, call = _site_and_call(frame, code, code.co_filename)
            outer = _tuple_new(Stack, (outer.frames + (site,), outer.calls + (call,)))
    return outer


class LazyStack:
    """A :class:`Stack` that walks the outer frames only if someone asks for them.

    Most ops need only their innermost user frame (``site``) and its invocation (``call``);
    the probe hands rules this object and, when the hook returns, either drops the frame it
    holds or, if a rule kept the object, fills in the whole stack first — so no frame outlives
    the event. Reads like a ``Stack``: ``frames``, ``calls``, ``site``, and ``stack[0]``.
    """

    __slots__ = ("site", "call", "_frame", "_stack")

    def __init__(self, frame: FrameType | None, site: Frame | None, call: int):
        self._frame = frame
        self.site = site
        self.call = call
        self._stack: Stack | None = None

    def materialize(self) -> Stack:
        if self._stack is None:
            frame, self._frame = self._frame, None
            if frame is None:
                self._stack = _tuple_new(Stack, ((self.site,), (self.call,)))
            else:
                outer = _outer(frame)
                self._stack = _tuple_new(Stack, (outer.frames + (self.site,), outer.calls + (self.call,)))
        return self._stack

    def release(self) -> None:
        """Forget the live frame (the stack stays readable if it was materialized)."""
        self._frame = None

    @property
    def frames(self) -> tuple[Frame, ...]:
        return self.materialize().frames

    @property
    def calls(self) -> tuple[int, ...]:
        return self.materialize().calls

    def __getitem__(self, index: int) -> tuple[Any, ...]:
        return self.materialize()[index]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.materialize())

    def __len__(self) -> int:
        return 2

    def __eq__(self, other: object) -> bool:
        return self.materialize() == (other.materialize() if isinstance(other, LazyStack) else other)

    __hash__ = None  # type: ignore[assignment]  # equal to its Stack, so not hashable


def kept(stack: Stack | LazyStack) -> Stack:
    """What a rule keeps of a ``stack`` it was handed (a :class:`Stack` or a :class:`LazyStack`):
    the plain :class:`Stack`, whole, and not the lazy object around it."""
    return stack.materialize() if isinstance(stack, LazyStack) else stack


def capture_lazy(depth: int = 1) -> LazyStack:
    """The innermost user frame above the caller's ``depth``-th frame, lazily with the rest."""
    frame: FrameType | None = _getframe(depth + 1)
    known = _is_user
    while frame is not None:  # _user_frame, inlined: this runs once per op
        filename = frame.f_code.co_filename
        user = known.get(filename)
        if user is None:
            user = is_user_file(filename)
        if user:
            break
        frame = frame.f_back
    if frame is None:
        empty = LazyStack(None, None, 0)
        empty._stack = _EMPTY
        return empty
    mark = frame.f_trace
    if type(mark) is _Mark and mark.lasti == frame.f_lasti:  # the same line as last time
        return LazyStack(frame, mark.site, mark.token)
    code = frame.f_code
    site, call = _site_and_call(frame, code, code.co_filename)
    return LazyStack(frame, site, call)


def user_site(depth: int = 1) -> Frame | None:
    """The innermost user frame above the caller's ``depth``-th frame, or ``None``."""
    frame = _user_frame(_getframe(depth + 1))
    return None if frame is None else frame_of(frame)


# -- walking frames by hand: the probes' questions about who called them ------------------------
def walk_out(frame: FrameType | None, past: Callable[[FrameType], bool]) -> FrameType | None:
    """The first frame from ``frame`` outwards (``frame`` included) that ``past`` does not pass
    over, or ``None`` when ``past`` passes over them all."""
    while frame is not None and past(frame):
        frame = frame.f_back
    return frame


def frame_of(frame: FrameType) -> Frame:
    """The :class:`Frame` of a live frame: its file, current line and function."""
    code = frame.f_code
    return _site(frame, code, frame.f_lasti, code.co_filename)  # the same Frame, its position known


def in_init_of(frame: FrameType, obj: object) -> bool:
    """Whether ``frame`` runs ``obj``'s own ``__init__`` or ``__new__`` (a subclass's
    ``super().__init__()`` chain)."""
    return frame.f_code.co_name in ("__init__", "__new__") and frame.f_locals.get("self") is obj


def user_site_from(frame: FrameType | None, skip_init_of: object = None) -> Frame | None:
    """The first user frame from ``frame`` outwards; with ``skip_init_of``, past that object's
    own ``__init__``/``__new__`` frames (where it was made, not how it builds itself)."""
    if skip_init_of is None:
        found = _user_frame(frame)
    else:
        found = walk_out(frame, lambda f: not is_user_file(f.f_code.co_filename) or in_init_of(f, skip_init_of))
    return None if found is None else frame_of(found)


_EMPTY = _tuple_new(Stack, ((), ()))


def receiver(depth: int = 1) -> int | None:
    """``id()`` of ``self`` in the innermost user frame above the caller's ``depth``-th frame:
    the object the running method works for (``None`` outside a method). Only the id is
    kept, never the object."""
    frame = _user_frame(_getframe(depth + 1))
    if frame is None:
        return None
    code = frame.f_code
    if not code.co_argcount or code.co_varnames[0] != "self":
        return None
    value = frame.f_locals.get("self")
    return None if value is None else id(value)


def passes_through(function: str, depth: int = 1) -> bool:
    """Whether a frame of a function named ``function`` (any file) is on the call stack above
    the caller's ``depth``-th frame."""
    return walk_out(_getframe(depth + 1), lambda f: f.f_code.co_name != function) is not None
