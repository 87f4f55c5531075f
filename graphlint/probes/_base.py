"""What every probe shares: install its patches step by step, fire hooks safely, restore."""

from __future__ import annotations

import collections
import sys
import threading
from typing import Callable

from graphlint.probes._dispatch import FastHook
from graphlint.probes.patching import Patcher


class Probe:
    """A set of patches on one part of TensorFlow that fire ``graphlint_*`` hooks.

    Subclasses list their patch steps in :meth:`steps`; a step that fails (a TensorFlow build
    without that internal) costs one warning line and the rules that need it, never the run.
    """

    name = ""
    #: The library whose internals it patches, as a warning names it.
    library = "TensorFlow"

    def __init__(self, hook, warn: Callable[[str], None] | None = None):
        self.hook = hook
        self.warn = warn or (lambda msg: print(msg, file=sys.stderr))
        self.patcher = Patcher()
        self.unavailable: list[str] = []
        self.active = False
        self._local = threading.local()
        self._fast: dict = {}  # HookCaller -> FastHook
        # Release events whose finalizer ran (a garbage collection) while a hook was busy in
        # this thread: delivered as soon as that hook returns, never dropped.
        self._deferred: collections.deque = collections.deque()

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
                self.warn(
                    f"graphlint: cannot watch {label} in this {self.library} "
                    f"({type(exc).__name__}: {exc}); rules that need it stay silent"
                )

    def uninstall(self) -> None:
        """Put back every patched attribute; finalizers of watched objects go quiet."""
        self.active = False
        self.patcher.restore()
        self._deferred.clear()
        self.forget()

    def internal(self, exc: BaseException, where: str) -> None:
        """A probe wrapper failed (a graphlint bug): the program goes on, its events there are
        lost, and that is said once per probe and place, never silently."""
        said = self.__dict__.setdefault("_said", set())
        if where in said:
            return
        said.add(where)
        self.warn(
            f"graphlint: internal error in the {self.name or type(self).__name__} probe ({where}): "
            f"{type(exc).__name__}: {exc}; some findings may be missing (please report it)"
        )

    # -- firing hooks ----------------------------------------------------------------------
    @staticmethod
    def fast_hook(hook):
        """A :class:`FastHook` for a pluggy HookCaller; any other callable is called as is."""
        if not hasattr(hook, "get_hookimpls"):
            return hook
        pm = getattr(getattr(hook, "_hookexec", None), "__self__", None)
        return FastHook(hook, pm)

    def _fire(self, hook, **kwargs):
        """Call a hook; never let graphlint's own failure reach the program."""
        local = self._local
        if not self.active or getattr(local, "busy", False):
            return
        fast = self._fast.get(hook)
        if fast is None:
            fast = self._fast[hook] = self.fast_hook(hook)
        local.busy = True
        try:
            fast(**kwargs)
        except Exception as exc:  # pragma: no cover - rules are isolated; this is a last guard
            self.warn(f"graphlint: internal error in {hook.name}: {type(exc).__name__}: {exc}")
        finally:
            local.busy = False
        if self._deferred:
            self._drain()

    def _fire_release(self, hook, **kwargs):
        """Fire a release event from a finalizer, which can run inside another hook's call
        (a collection triggered there): then it waits for that call to end."""
        if self.active and getattr(self._local, "busy", False):
            self._deferred.append((hook, kwargs))
        else:
            self._fire(hook, **kwargs)

    def _drain(self):
        deferred = self._deferred
        while deferred:
            try:
                hook, kwargs = deferred.popleft()
            except IndexError:  # another thread took the last one
                return
            self._fire(hook, **kwargs)
