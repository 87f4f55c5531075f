"""What every probe shares: install its patches step by step, fire hooks safely, restore.

A probe fires an event with ``self._fire(self.hook.graphlint_<event>, name=value, ...)``: every
argument of the hook's specification (:mod:`graphlint._hookspecs`) by keyword, plain data or
borrowed framework objects. What it cannot do — install a patch step, or handle one event — it
says once per probe and place, through :meth:`Probe.cannot`, and the program goes on.
"""

from __future__ import annotations

import collections
import sys
import threading
from typing import Any, Callable, TypeVar

from graphlint.dispatch import Hook, Hooks
from graphlint.probes.patching import Patcher

_T = TypeVar("_T")


def internal_error_line(who: str, where: str, exc: BaseException) -> str:
    """The one line that says graphlint's own code failed in ``who`` at ``where``: the program
    went on, and what graphlint would have seen there is lost."""
    return (
        f"graphlint: internal error in the {who} ({where}): "
        f"{type(exc).__name__}: {exc}; some findings may be missing (please report it)"
    )


class Probe:
    """A set of patches on one part of TensorFlow that fire ``graphlint_*`` hooks.

    Subclasses list their patch steps in :meth:`steps`; a step that fails (a TensorFlow build
    without that internal) costs one warning line and the rules that need it, never the run.
    """

    name = ""
    #: The library whose internals it patches, as a warning names it.
    library = "TensorFlow"

    def __init__(self, hook: Hooks, warn: Callable[[str], None] | None = None) -> None:
        self.hook = hook  # the linter's hooks (graphlint.dispatch.Hooks), by event name
        self.warn = warn or (lambda msg: print(msg, file=sys.stderr))
        self.patcher = Patcher()
        self.unavailable: list[str] = []
        self.active = False
        self._local = threading.local()
        self._said: set[str] = set()  # where this probe said it cannot watch something
        # Release events whose finalizer ran (a garbage collection) while a hook was busy in
        # this thread: delivered as soon as that hook returns, never dropped.
        self._deferred: collections.deque[tuple[Hook, dict[str, Any]]] = collections.deque()

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        """``(what it watches, function that patches it)`` pairs, in install order."""
        raise NotImplementedError

    def forget(self) -> None:
        """Drop the probe's bookkeeping after uninstall."""

    def install(self) -> None:
        steps = self.steps()
        self.active = True
        for label, step in steps:
            try:
                step()
            except Exception as exc:
                self.unavailable.append(label)
                self.cannot(
                    label,
                    f"cannot watch {label} in this {self.library} ({type(exc).__name__}: {exc}); rules that need it stay silent",
                )

    def uninstall(self) -> None:
        """Put back every patched attribute; finalizers of watched objects go quiet."""
        self.active = False
        self.patcher.restore()
        self._deferred.clear()
        self.forget()

    # -- the one error policy --------------------------------------------------------------
    def cannot(self, where: str, message: str) -> None:
        """Say ``message`` (one line) once per probe and place: what this probe cannot watch."""
        if where in self._said:
            return
        self._said.add(where)
        self.warn(f"graphlint: {message}")

    def internal(self, exc: BaseException, where: str) -> None:
        """A probe wrapper failed (a graphlint bug): the program goes on, its events there are
        lost, and that is said once per probe and place, never silently."""
        if where not in self._said:
            self._said.add(where)
            self.warn(internal_error_line(f"{self.name or type(self).__name__} probe", where, exc))

    def guarded(self, where: str, function: Callable[..., _T], *args: Any) -> _T | None:
        """``function(*args)``, or ``None`` when it fails (said once: :meth:`internal`)."""
        try:
            return function(*args)
        except Exception as exc:  # never break the program
            self.internal(exc, where)
            return None

    # -- firing hooks ----------------------------------------------------------------------
    def _fire(self, hook: Hook, **event: Any) -> None:
        """Deliver ``event`` on ``hook`` (a :class:`graphlint.dispatch.Hook`), unless nobody
        listens or this thread is inside a hook already; rules are isolated by the hook itself."""
        local = self._local
        if not self.active or getattr(local, "busy", False):
            return
        if hook.listeners:
            local.busy = True
            try:
                hook.deliver(hook.values(event))
            except Exception as exc:  # an argument missing: the probe's bug, said once
                self.internal(exc, hook.name)
            finally:
                local.busy = False
        if self._deferred:
            self._drain()

    def _fire_release(self, hook: Hook, **kwargs: Any) -> None:
        """Fire a release event from a finalizer, which can run inside another hook's call
        (a collection triggered there): then it waits for that call to end."""
        if self.active and getattr(self._local, "busy", False):
            self._deferred.append((hook, kwargs))
        else:
            self._fire(hook, **kwargs)

    def _drain(self) -> None:
        deferred = self._deferred
        while deferred:
            try:
                hook, kwargs = deferred.popleft()
            except IndexError:  # another thread took the last one
                return
            self._fire(hook, **kwargs)
