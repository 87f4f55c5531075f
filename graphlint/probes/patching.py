"""Reversible patches: every patched attribute goes back to the identical object on exit."""

from __future__ import annotations

from typing import Any, Callable

_MISSING = object()

#: The file name graphlint's wrapper frames carry. TensorFlow counts ``<embedded...`` frames as
#: its own, so the op tracebacks and error messages it prints still point at the user's line,
#: exactly as without graphlint; graphlint's runner leaves these frames out of the program's
#: traceback, as it does its own.
WRAPPER_FILENAME = "<embedded graphlint probe>"


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
