"""``%load_ext graphlint``: the probes installed in the running kernel, findings under each cell.

Every cell run is judged twice: as a program of its own (every runtime rule in a fresh scope,
finished when the cell ends: a loop inside the cell that rebuilds, retraces or predicts row by
row), and against the cell's earlier runs (the rules' kernel forms, :mod:`graphlint.jupyter.rules`:
re-running the cell that builds the model). What a cell caused is displayed under it as one ``display_data``
output (``text/plain``, with ``{"graphlint": ...}`` in its metadata); the cell's own outputs
and its result (``Out[n]``, ``_``) are untouched.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any, Callable

from graphlint.findings import Finding, finding_to_dict
from graphlint.text import plural

if TYPE_CHECKING:
    from graphlint.findings import Location
    from graphlint.linter import RuleScope

_MAGIC = "graphlint"
#: The names IPython's `%%time` compiles a cell's body under (its line 1 is the cell's line 2).
_TIMED = ("<timed exec>", "<timed eval>")


class KernelLinter:
    """The extension's state in one IPython shell."""

    def __init__(self, shell: Any) -> None:
        from graphlint.config import load
        from graphlint.linter import Linter, Sink
        from graphlint.jupyter.rules import Cells, kernel_rules

        self.shell = shell
        self.config = load(None, start=os.getcwd())
        self.linter = Linter(self.config, scoped=True, warn=self._warn)
        self.cells = Cells()
        self.sink = Sink(self.config)
        self.cell_rules = [
            cls(self.sink, self.cells, self.config.options_for(cls))
            for cls in kernel_rules(self.linter.rule_classes.values())
            if self.config.is_selected(cls.code)
        ]
        for rule in self.cell_rules:
            self.linter.pm.register(rule, name=f"kernel-{rule.code}")
        self.findings: list[Finding] = []  # every finding shown so far, in order
        self.scope: RuleScope | None = None
        self._probes: contextlib.ExitStack | None = None
        #: (IPython event, the callback registered for it), unregistered on unload
        self.callbacks: list[tuple[str, Callable[[Any], None]]] = []

    # -- on / off ------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self._probes is not None

    def start(self) -> None:
        from graphlint.instrument import instrument

        if self._probes is not None:
            return
        stack = contextlib.ExitStack()
        stack.enter_context(instrument(self.linter, warn=self._warn))
        self._probes = stack

    def stop(self) -> None:
        """Restore everything the probes patched (a cell in progress is dropped)."""
        self._drop_scope()
        self.cells.current = None
        if self._probes is not None:
            probes, self._probes = self._probes, None
            probes.close()

    def close(self) -> None:
        self.stop()
        for rule in self.cell_rules:
            self.linter.pm.unregister(rule)

    # -- cells ---------------------------------------------------------------------------------
    def pre_run_cell(self, info: Any) -> None:
        if not self.active:
            return
        from graphlint.jupyter.rules import CellRun

        raw = getattr(info, "raw_cell", "") or ""
        key = getattr(info, "cell_id", None) or raw
        run = CellRun(key, filename=self._code_name(info))
        if _is_timed(raw):
            from graphlint import stacks

            run.aliases = _TIMED
            for name in _TIMED:  # the user's code, while this cell runs
                stacks.count_as_user(name)
        self.cells.current = run
        self.cells.runs.append(run)
        self._drop_scope()
        self.scope = self.linter.open_scope(self.config)

    def post_run_cell(self, result: Any) -> None:
        run, self.cells.current = self.cells.current, None
        if run is None or not self.active:
            return
        run.count = getattr(result, "execution_count", None)
        if run.aliases:
            from graphlint import stacks

            for name in run.aliases:
                stacks.count_as_user(name, False)
        found: list[Finding] = []
        if self.scope is not None:
            scope, self.scope = self.scope, None
            found += scope.finish(0 if getattr(result, "success", True) else 1)
        for rule in self.cell_rules:
            rule.cell_finished(run)
        found += self.sink.take()
        shown: list[Finding] = []
        seen: set[object] = set()
        for f in found:
            if f.key not in seen:
                seen.add(f.key)
                shown.append(f)
        if run.aliases:
            shown = [_untimed(f, run.count) for f in shown]
        shown.sort(key=lambda f: (f.location.path, f.location.line, f.code))
        if shown:
            self.findings += shown
            self._display(shown)

    def _drop_scope(self) -> None:
        if self.scope is not None:
            scope, self.scope = self.scope, None
            for rule in scope.rules:
                with contextlib.suppress(Exception):
                    self.linter.pm.unregister(rule)

    def _code_name(self, info: Any) -> str:
        """The file name the cell will be compiled under (ipykernel: a file in a temporary
        folder; terminal IPython: ``<ipython-input-…>``, made user code here)."""
        from graphlint import stacks

        try:
            transformed = getattr(info, "transformed_cell", None) or info.raw_cell
            count = self.shell.execution_count - (1 if getattr(info, "store_history", True) else 0)
            name = self.shell.compile.get_code_name(info.raw_cell, transformed, count)
        except Exception:
            return ""
        if not isinstance(name, str):
            return ""
        if name.startswith("<ipython-input-"):
            stacks.count_as_user(name)
        return name

    # -- showing findings ----------------------------------------------------------------------
    def where(self, location: Location) -> str:
        """``In [5], line 3`` for a line of a cell, ``path:line`` for a file. A cell rule's
        location names its run (``cell``); else the cell's latest ``In [n]``."""
        count = location.cell
        if count is None:
            names = getattr(getattr(self.shell, "compile", None), "_filename_map", {})
            count = names.get(location.path)
        if count is not None:
            return f"In [{count}], line {location.line}"
        return f"{location.display_path()}:{location.line}"

    def format(self, findings: list[Finding]) -> str:
        lines = []
        for f in findings:
            count = f" (×{f.count})" if f.count > 1 else ""
            lines.append(f"{self.where(f.location)}: {f.code} {f.message}{count}")
            for rel in f.related:
                lines.append(f"    {self.where(rel.location)}: {rel.message}")
            if f.fix:
                lines.append(f"    fix: {f.fix}")
        return "\n".join(lines)

    def _display(self, findings: list[Finding]) -> None:
        text = self.format(findings)
        data = {"findings": [finding_to_dict(f) | {"where": self.where(f.location)} for f in findings]}
        try:
            from IPython.display import display

            display({"text/plain": text}, raw=True, metadata={"graphlint": data})
        except Exception:  # no display machinery: the terminal
            print(text, file=sys.stderr)

    # -- %graphlint ----------------------------------------------------------------------------
    def magic(self, line: str = "") -> None:
        """``%graphlint`` lists every finding so far; ``%graphlint off`` / ``on``."""
        word = line.strip().lower()
        if word == "off":
            self.stop()
            print("graphlint: off (TensorFlow is restored; %graphlint on to watch again)")
        elif word == "on":
            try:
                self.start()
            except Exception as exc:  # TensorFlow missing, or another instrument() active
                print(f"graphlint: error: {exc}", file=sys.stderr)
                return
            print("graphlint: on")
        elif word in ("", "list"):
            if not self.findings:
                print(f"graphlint: no findings so far{'' if self.active else ' (off)'}.")
                return
            print(self.format(self.findings))
            n = len(self.findings)
            print(f"graphlint: {plural(n, 'finding')} so far{'' if self.active else ' (off)'}.")
        else:
            print(f"graphlint: error: unknown argument {line.strip()!r} (use: %graphlint [on|off])", file=sys.stderr)

    def _warn(self, message: str) -> None:
        print(message, file=sys.stderr)


_loaded: dict[int, KernelLinter] = {}


def _is_timed(raw: str) -> bool:
    first = raw.lstrip().split("\n", 1)[0].split()
    return bool(first) and first[0] == "%%time"


def _untimed(finding: Finding, count: int | None) -> Finding:
    """A `%%time` cell's lines as the cell's own (its body starts on the cell's line 2)."""
    from dataclasses import replace

    def fix(loc: Location) -> Location:
        if loc.path not in _TIMED:
            return loc
        return replace(loc, line=loc.line + 1, cell=loc.cell if loc.cell is not None else count)

    related = tuple(replace(r, location=fix(r.location)) for r in finding.related)
    return replace(finding, location=fix(finding.location), related=related)


def _guarded(handler: Callable[[Any], None]) -> Callable[[Any], None]:
    """An event handler that never disturbs the user's cell: a failure of graphlint's own is
    one line on stderr, never a traceback in the cell's output."""

    def call(arg: Any) -> None:
        try:
            handler(arg)
        except Exception as exc:  # pragma: no cover - graphlint's own bug
            print(f"graphlint: internal error after this cell ({type(exc).__name__}: {exc})", file=sys.stderr)

    return call


def load_ipython_extension(shell: Any) -> None:
    if id(shell) in _loaded:
        return
    from graphlint.config import ConfigError

    try:
        kernel = KernelLinter(shell)
        kernel.start()
    except (ConfigError, RuntimeError) as exc:
        print(f"graphlint: error: {exc}", file=sys.stderr)
        return
    _loaded[id(shell)] = kernel
    kernel.callbacks = [("pre_run_cell", _guarded(kernel.pre_run_cell)), ("post_run_cell", _guarded(kernel.post_run_cell))]
    for event, callback in kernel.callbacks:
        shell.events.register(event, callback)
    shell.register_magic_function(kernel.magic, "line", _MAGIC)


def unload_ipython_extension(shell: Any) -> None:
    if id(shell) not in _loaded:
        return
    kernel = _loaded.pop(id(shell))
    for event, callback in kernel.callbacks:
        with contextlib.suppress(ValueError):
            shell.events.unregister(event, callback)
    shell.magics_manager.magics["line"].pop(_MAGIC, None)
    kernel.close()
