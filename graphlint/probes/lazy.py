"""Install each framework's probes when the program imports that framework, never before.

graphlint imports no framework itself: a JAX program under ``graphlint run`` pays no TensorFlow
import, a TensorFlow program no JAX import. :class:`ProbeSet` installs the probes of a framework
at once when its module is already imported, and otherwise puts a finder on ``sys.meta_path``
that notices the import of a watched top-level package and, when the outermost such import has
finished (``import keras`` imports ``tensorflow`` inside it), installs the probes of every
framework now present. The finder adds nothing to the modules it sees: their spec and loader
are the ones Python would have used.
"""

from __future__ import annotations

import importlib.abc
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterable

from graphlint.probes.patching import unwound

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

    from graphlint.probes._base import Probe

#: (module whose import triggers it, factory of the probes for it)
Trigger = tuple[str, Callable[[], "list[Probe]"]]

_callbacks: list[tuple[str, Callable[[], None]]] = []


def on_import(module: str, callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback()`` (in the importing thread) once an active :class:`ProbeSet` has
    installed the probes for ``module``, i.e. right after the program imported it. Returns a
    function that cancels it."""
    entry = (module, callback)
    _callbacks.append(entry)

    def cancel() -> None:
        try:
            _callbacks.remove(entry)
        except ValueError:
            pass

    return cancel


class _ImportWatcher(importlib.abc.MetaPathFinder):
    """Calls ``done()`` each time the outermost import of one of ``names`` finishes."""

    def __init__(self, names: Iterable[str], done: Callable[[], None]) -> None:
        self.names = frozenset(names)
        self.done = done
        self.depth = 0
        self._local = threading.local()
        self._lock = threading.Lock()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in self.names or getattr(self._local, "finding", False):
            return None
        self._local.finding = True
        try:
            spec = None
            for finder in list(sys.meta_path):
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        except BaseException as exc:  # another finder's error, as python shows it
            unwound(exc)
            raise
        finally:
            self._local.finding = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        self._watch(spec.loader)
        return spec

    def _watch(self, loader: Any) -> None:
        """Wrap this loader object's ``exec_module`` for one call (an instance attribute)."""
        original = loader.exec_module
        watcher = self

        def exec_module(module: ModuleType) -> None:
            with watcher._lock:
                watcher.depth += 1
            try:
                original(module)
            except BaseException as exc:  # the module's own error, as python shows it
                unwound(exc)
                raise
            finally:
                try:
                    del loader.exec_module
                except AttributeError:
                    pass
                with watcher._lock:
                    watcher.depth -= 1
                    outermost = watcher.depth == 0
            if outermost:
                watcher.done()

        try:
            loader.exec_module = exec_module
        except (AttributeError, TypeError):  # a loader without an instance dict: not watched
            pass


class ProbeSet:
    """The probes of every framework the program uses, installed as each one is imported."""

    def __init__(self, triggers: list[Trigger], watched: Iterable[str], warn: Callable[[str], None],
                 finders: list[Any] | None = None) -> None:
        self.triggers = triggers
        self.warn = warn
        self.finders = finders  # where the watcher goes: sys.meta_path (None), or graphlint run's own
        self.installed: dict[str, list[Probe]] = {}
        self._watcher = _ImportWatcher(watched, self.install_present)
        self._lock = threading.RLock()

    def start(self) -> None:
        self.install_present()
        if len(self.installed) < len(self.triggers):
            (sys.meta_path if self.finders is None else self.finders).insert(0, self._watcher)

    def install_present(self) -> None:
        """Install the probes of each framework whose module is imported by now."""
        with self._lock:
            for module, factory in self.triggers:
                if module in self.installed or sys.modules.get(module) is None:
                    continue
                probes = self.installed[module] = []
                try:
                    for probe in factory():
                        probes.append(probe)
                        probe.install()
                except Exception as exc:  # never break the program's import
                    self.warn(f"graphlint: cannot watch {module} ({type(exc).__name__}: {exc})")
                for wanted, callback in list(_callbacks):
                    if wanted == module:
                        try:
                            callback()
                        except Exception as exc:  # never break the program's import
                            from graphlint.probes._base import internal_error_line

                            self.warn(internal_error_line("import watcher", f"after importing {module}", exc))

    def stop(self) -> None:
        try:
            (sys.meta_path if self.finders is None else self.finders).remove(self._watcher)
        except ValueError:
            pass
        with self._lock:
            for module in reversed(list(self.installed)):
                for probe in reversed(self.installed.pop(module)):
                    probe.uninstall()

    @property
    def probes(self) -> list[Probe]:
        return [probe for probes in self.installed.values() for probe in probes]
