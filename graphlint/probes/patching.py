"""Reversible patches: every patched attribute goes back to the identical object on exit."""

from __future__ import annotations

import os
from typing import Any, Callable

_MISSING = object()

#: The file name graphlint's wrapper frames carry. TensorFlow counts ``<embedded...`` frames as
#: its own, so the op tracebacks and error messages it prints still point at the user's line,
#: exactly as without graphlint; an exception leaving a wrapper leaves these frames behind
#: (:func:`unwound`).
WRAPPER_FILENAME = "<embedded graphlint probe>"
#: graphlint's own folder: a frame of a file under it is graphlint's.
_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def unwound(exc: BaseException) -> None:
    """Take graphlint's own frames off the head of ``exc``'s traceback, as it leaves a probe's
    wrapper for the program: the wrapper's (and those of the probe's code it went through, an
    interrupt in a hook), so that the program's traceback is python's, with no frame of
    graphlint's between the caller's and the patched function's.

    Every wrapper's body is ``try: ... except BaseException as exc: unwound(exc); raise``: the
    bare ``raise`` re-raises ``exc`` with the traceback it now has and adds no entry for the
    wrapper's own frame (Python 3.11 on; on 3.10 the wrapper's entry stays, as before)."""
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename != WRAPPER_FILENAME and not filename.startswith(_OWN_DIR):
            break
        tb = tb.tb_next
    exc.__traceback__ = tb


def _disguised(wrapper: Any) -> Any:
    code = getattr(wrapper, "__code__", None)
    if code is not None:
        wrapper.__code__ = code.replace(co_filename=WRAPPER_FILENAME)
    return wrapper


class Patcher:
    """Records each patch so that :meth:`restore` puts back exactly what was there."""

    def __init__(self) -> None:
        self._undo: list[tuple[object, str, Any]] = []

    def patch(self, owner: object, attr: str, make: Callable[[Any], Any], *, disguise: bool = True) -> None:
        """Replace ``owner.attr`` by ``make(original)``.

        ``disguise=False`` keeps the wrapper's real file name: for a wrapper that AutoGraph may
        be asked to convert (``tf.function(layer)`` converts ``Layer.__call__``), which needs
        its source.

        The original is read from the owner's own ``__dict__`` when it is there (so that a
        staticmethod, property or inherited attribute is restored as it was).
        """
        raw = vars(owner).get(attr, _MISSING) if hasattr(owner, "__dict__") else _MISSING
        current = getattr(owner, attr)  # AttributeError: the probe is unavailable
        wrapper = make(current)
        setattr(owner, attr, _disguised(wrapper) if disguise else wrapper)
        self._undo.append((owner, attr, raw))

    def restore(self) -> None:
        while self._undo:
            owner, attr, raw = self._undo.pop()
            if raw is _MISSING:
                try:
                    delattr(owner, attr)
                except AttributeError:
                    pass
            else:
                setattr(owner, attr, raw)

    @property
    def patched(self) -> list[tuple[object, str]]:
        return [(owner, attr) for owner, attr, _ in self._undo]
