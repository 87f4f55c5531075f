"""graphlint's engine inside the program's own process (``graphlint run``'s child).

The start-up hook (graphlint/_boot/sitecustomize.py) starts an :class:`Engine` when the program
first imports a framework: the run's rules on a :class:`~graphlint.linter.Linter`, the probes
installed for the rest of the process (graphlint.instrument.watch_process). Its reports go to
the process's record in the run's channel folder, which the parent reads once the program has
ended (graphlint.runner):

- the final report, when the process ends: at exit (after the program's threads and atexit
  handlers), or in ``os._exit``: ``finish()`` of the rules (whose ``exit_status`` is the one
  given to ``os._exit``, else 0: at exit Python does not tell; the parent has the real one);
- interim reports, so that a process killed by a signal (SIGKILL, or SIGTERM with no handler of
  the program's) leaves what was judged up to its last one: the rules' end-of-run judgment made
  on a copy of each rule (:func:`judged_copy`; the rules themselves carry on), written after an
  event (the probes call every hook the rules listen to, and this engine's hook last) once
  :data:`INTERVAL` seconds have passed since the last interim report ended (or
  :data:`COST_FACTOR` times as long as that report took, when longer: interim reports never
  cost more than 1/COST_FACTOR of the run), or at once when the event gave a finding at a line
  not seen before; and before an ``exec``. No thread, timer or signal handler is added to the
  program, so a report can only be made when the program gives an event: a killed process
  loses the events after its last interim report, which all came within that interval after it
  (however long ago), and nothing when it ends otherwise.

A forked child starts with fresh rules: its findings are those of what it did itself.
"""

from __future__ import annotations

import copy
import copyreg
import functools
import importlib
import inspect
import io
import json
import linecache
import os
import pickle
import sys
import threading
import time
import weakref
import zipimport
from typing import TYPE_CHECKING, Any, Callable

from graphlint._boot.sitecustomize import SETTINGS
from graphlint.dispatch import TRYLAST, Member
from graphlint.findings import Finding, finding_to_dict, sorted_findings
from graphlint.instrument import watch_process
from graphlint.linter import Linter, RuleScope, Sink
from graphlint.stacks import Frame

if TYPE_CHECKING:
    from graphlint._boot.sitecustomize import Boot
    from graphlint.rules import Rule

#: Seconds from the end of an interim report to the next at least (bench/run_overhead.py) ...
INTERVAL = 2.0
#: ... and at least this many times as long as the last one took: they never cost more than
#: 1/COST_FACTOR of the run.
COST_FACTOR = 50
#: How long the final report (and one before an exec) waits for one another thread writes.
_FINAL_WAIT = 10.0

_monotonic = time.monotonic
#: What the probes need when they are installed, later, in the program's own imports: imported
#: when the engine starts (no framework is: each probe imports its framework when installed).
_PROBE_MODULES = (
    "graphlint.probes.lazy", "graphlint.dispatch", "graphlint.probes.tf_graph",
    "graphlint.probes.tf_function", "graphlint.probes.keras_layers", "graphlint.probes.tf_keras_models",
    "graphlint.probes.jax_jit", "graphlint.probes.torch_api", "graphlint.probes.torch_dynamo",
)


class Engine:
    """The rules, the probes and the reports of one process of ``graphlint run``."""

    def __init__(self, boot: Boot) -> None:
        self.boot = boot
        with open(os.path.join(boot.channel, SETTINGS), "rb") as fh:
            settings = pickle.load(fh)
        self.warnings: list[str] = []
        self.done = False  # the final report is written: nothing more
        self.linter = Linter(settings["config"], plugins=settings["plugins"], warn=self.warn)
        assert self.linter.main is not None, "a linter made without scoped=True has its main scope"
        self._fresh(self.linter.main)
        self._listen()
        self._zips: set[str] = set()
        self._read_zipped_sources()
        for module in _PROBE_MODULES:  # now, while imports are graphlint's (see the start-up hook)
            importlib.import_module(module)
        if not watch_process(self.linter, warn=self.warn, finders=boot.finders):
            self.warn("graphlint: the program's own graphlint.instrument() block was open when it imported "
                      "its framework: graphlint run watched only what that block saw")

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def _fresh(self, scope: RuleScope) -> None:
        """Judge ``scope``'s rules from now on; the next event reports at once."""
        self.scope = scope
        self._lock = threading.Lock()
        self.due = 0.0
        self.dirty = False
        seen: set[tuple[str, str, int]] = set()
        sink = scope.sink
        add = sink.add

        def watched_add(finding: Finding) -> None:  # a finding at a line not reported before: report soon
            add(finding)
            key = finding.key
            if key not in seen:
                seen.add(key)
                self.dirty = True

        sink.add = watched_add  # type: ignore[method-assign]  # this sink's own, for the run

    def _listen(self) -> None:
        """One listener on every hook the rules listen to, called after theirs (the
        dispatcher's ``trylast``): a hook no rule hears stays silent, and its events unbuilt."""
        engine = self

        def tick() -> None:
            if engine.dirty or _monotonic() >= engine.due:
                engine.interim()

        heard = [hook.name for hook in self.linter.dispatcher.hooks
                 if hook.listeners and hook.name != "graphlint_run_finished"]
        member = Member(self, [(name, tick, (), TRYLAST) for name in heard],
                        lambda exc, hook: self.warn(f"graphlint: an interim report failed in {hook}: {type(exc).__name__}: {exc}"))
        self.linter.dispatcher.join([member])

    # -- reports -------------------------------------------------------------------------------
    def interim(self, ended: str | None = None) -> None:
        """Write what the rules would report now, leaving them as they are (before an exec,
        after the one another thread is writing)."""
        locked = self._lock.acquire(timeout=_FINAL_WAIT) if ended else self._lock.acquire(blocking=False)
        if not locked:
            return  # another thread is writing one
        if self.done:
            self._lock.release()
            return  # the final one is written
        try:
            start = _monotonic()
            self.dirty = False
            try:
                with self.boot.own_imports():
                    findings = self._judge_copy()
                self._write(findings, final=False, ended=ended, status=None)
            except Exception:  # a rule's state changed under the copy (another thread): later
                pass
            self.due = _monotonic() + max(INTERVAL, COST_FACTOR * (_monotonic() - start))
        finally:
            self._lock.release()

    def report(self, final: bool, ended: str, status: int | None = None) -> None:
        """The start-up hook's report: final (the process ends) or interim (``exec``)."""
        if not final:
            self.interim(ended)
            return
        locked = self._lock.acquire(timeout=_FINAL_WAIT)
        try:
            if self.done:
                return
            self.done = True
            with self.boot.own_imports():
                self._read_zipped_sources()
                findings = self.scope.finish(status or 0)
            self._write(findings, final=True, ended=ended, status=status)
        finally:
            if locked:
                self._lock.release()

    def _judge_copy(self) -> list[Finding]:
        self._read_zipped_sources()
        return judged_copy(self.scope)

    def _write(self, findings: list[Finding], *, final: bool, ended: str | None, status: int | None) -> None:
        boot = self.boot
        record = {
            "version": 1,
            "pid": boot.pid,
            "ppid": os.getppid(),
            "image": boot.image,
            "kind": boot.kind,
            "argv": list(getattr(sys, "orig_argv", sys.argv)),
            "final": final,
            "ended": ended,
            "status": status,
            "error": None,
            "findings": [finding_to_dict(f) for f in findings],
            "warnings": list(self.warnings),
        }
        boot.write(json.dumps(record))

    # -- the program's own files in a zip archive ------------------------------------------------
    def _read_zipped_sources(self) -> None:
        """``# noqa`` is read from the finding's line: give linecache the sources of every zip
        archive the program imports from (a zipapp), as python's tracebacks read them."""
        for entry, importer in list(sys.path_importer_cache.items()):
            if not isinstance(importer, zipimport.zipimporter) or entry in self._zips:
                continue
            self._zips.add(entry)
            try:
                import zipfile

                archive = importer.archive
                with zipfile.ZipFile(archive) as zf:
                    names = [n for n in zf.namelist() if n.endswith(".py")]
            except Exception:
                continue
            for name in names:
                for base in {archive, os.path.abspath(archive)}:
                    path = os.path.join(base, *name.split("/"))
                    if path not in linecache.cache:
                        linecache.cache[path] = (functools.partial(_zipped_source, archive, name),)

    # -- a forked child --------------------------------------------------------------------------
    def forked(self) -> None:
        """A forked child judges only what it does itself: fresh rules, nothing reported yet."""
        old = self.scope
        self.warnings = []
        self._fresh(self.linter.open_scope())
        for rule in old.rules:
            try:
                self.linter.pm.unregister(rule)
            except Exception:
                pass


def judged_copy(scope: RuleScope) -> list[Finding]:
    """What ``scope.finish()`` would report now, leaving the scope's rules as they are: the
    live sink's findings plus the end-of-run judgment of a copy of each rule (a rule whose
    state cannot be copied is left to the final report)."""
    sink = Sink(scope.config)
    for finding in scope.sink.findings():
        sink.add(finding)
    for rule in scope.rules:
        finished = _finisher(type(rule))  # type: ignore[arg-type]  # a class is hashable; mypy doubts type[Any]
        if finished is None:
            continue
        clone = _copied(rule, scope.sink, sink)
        if clone is not None:
            finished(clone, 0)
    return sorted_findings(sink.findings())


def _copied(rule: Rule, live: Sink, fresh: Sink) -> Rule | None:
    """A deep copy of ``rule`` reporting to ``fresh`` instead of ``live``, weak references
    shared: :func:`pickled_copy`, else ``copy.deepcopy`` (a state holding a lambda, say), else
    None."""
    try:
        return pickled_copy(rule, fresh)
    except Exception:
        pass
    try:
        return copy.deepcopy(rule, {id(live): fresh})
    except Exception:
        return None


def pickled_copy(obj: Any, fresh: Sink) -> Any:
    """A deep copy of ``obj`` through pickle, where any :class:`Sink` becomes ``fresh`` and weak
    references are shared (as ``copy.deepcopy`` shares them), and so are the user's frames
    (immutable; :func:`graphlint.stacks.position` knows a frame's columns by its identity).
    Pickle works in C: a rule state
    of 10^5 op ids copies several times faster than with copy.deepcopy."""
    refs: list[object] = []

    def ref(obj: object) -> tuple[Callable[[int], object], tuple[int]]:
        refs.append(obj)
        return _shared, (len(refs) - 1,)

    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {
        **copyreg.dispatch_table, Sink: lambda _: (_sink, ()), weakref.ref: ref, weakref.KeyedRef: ref, Frame: ref,
    }
    pickler.dump(obj)
    _copying.objects = (fresh, refs)
    try:
        return pickle.loads(buffer.getvalue())
    finally:
        _copying.objects = None


_copying = threading.local()  # (the sink a copy reports to, the weak references it shares)


def _sink() -> Sink:
    return _copying.objects[0]


def _shared(index: int) -> object:
    return _copying.objects[1][index]


def _zipped_source(archive: str, name: str) -> str:
    import zipfile

    with zipfile.ZipFile(archive) as zf:
        return zf.read(name).decode("utf-8")


@functools.lru_cache(maxsize=None)
def _finisher(cls: type) -> Callable[[Rule, int], None] | None:
    """``finished(rule, status)`` calling the class's ``graphlint_run_finished`` (isolated, as
    every hook of a rule) with the arguments it names; None when it has none."""
    method = getattr(cls, "graphlint_run_finished", None)
    if method is None:
        return None
    wants_status = "exit_status" in inspect.signature(method).parameters

    def finished(rule: Rule, status: int) -> None:
        if wants_status:
            method(rule, exit_status=status)
        else:
            method(rule)

    return finished
