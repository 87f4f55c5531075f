"""The static engine as the server keeps it warm: one thread, one process state.

What the engine read stays in memory between checks (the workspace's
:class:`~graphlint.static.model.project.Project`: the parsed modules of the user's tree and
where each import leads), so that a check after an edit
parses only the edited document. The editor's open buffers stand for their files wherever an
analysis follows an import (graphlint.static.buffers); a change to one, or to a file on disk,
returns the files whose analyses read it, for the server to check again.

That state is not shared between threads: a :class:`Checker` is only ever called from the
one thread the server runs checks in.
"""

from __future__ import annotations

import gc
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from graphlint.config import Config
from graphlint.findings import (
    INTERNAL_ERROR_CODE,
    INTERNAL_ERROR_FIX,
    INTERNAL_ERROR_NAME,
    SYNTAX_ERROR_CODE,
    Finding,
    Location,
    Severity,
)
from graphlint.reading import read_regular
from graphlint.server.documents import Snapshot
from graphlint.static.buffers import Project, check_source
from graphlint.static.engine import FileResult, read_limit

if TYPE_CHECKING:
    from graphlint.rules._base import Rule

logger = logging.getLogger("graphlint.server")


@dataclass
class Checked:
    """One check of a document: what it read (``snapshot``), found (``result``) and followed
    (``deps``: the other files its analysis read, absolute paths)."""

    snapshot: Snapshot
    result: FileResult
    deps: frozenset[str] = field(default_factory=frozenset)


def _on_disk(path: str) -> bytes | None:
    """What the file at ``path`` holds; None when it is no regular file (a FIFO would block
    the checking thread for good, ``/dev/zero`` never end) or cannot be read."""
    try:
        return read_regular(path, read_limit(path))
    except OSError:
        return None


class Checker:
    def __init__(self, rules: dict[str, type[Rule]]):
        self.rules = rules
        self._static: dict[tuple, list[type[Rule]]] = {}
        self._buffers: dict[str, bytes] = {}  # path -> what an open text document holds
        self._unsaved: set[str] = set()  # the buffers that stand for their files (set_source)
        #: The workspace as the checks read it: one project for the server's life, told of changes.
        self.project = Project()

    def rules_for(self, config: Config) -> list[type[Rule]]:
        """The static rules ``config`` selects (as ``graphlint check`` runs them)."""
        codes = tuple(code for code in self.rules if config.is_selected(code))
        if codes not in self._static:
            self._static[codes] = [
                cls
                for code, cls in self.rules.items()
                if code in codes and cls.checks_statically()
            ]
        return self._static[codes]

    def check(self, snapshot: Snapshot, config: Config, *, syntax_errors: bool = True) -> Checked:
        """The findings of the document, as ``graphlint check`` reports them for a file that
        holds what the editor holds. A failure of graphlint itself (not of a rule: the
        engine isolates those, as GL000) is one GL000 on the document's first line."""
        enabled = gc.isenabled()
        gc.disable()  # a check makes cyclic garbage by the hundred thousand: collect() after it
        try:
            result = check_source(snapshot.path, snapshot.data, self.rules_for(config), config, self.project)
        except Exception as exc:
            logger.exception("graphlint failed on %s", snapshot.path)
            finding = Finding(
                code=INTERNAL_ERROR_CODE,
                name=INTERNAL_ERROR_NAME,
                severity=Severity.ERROR,
                message=f"graphlint failed on this file: {type(exc).__name__}: {exc}",
                location=Location(snapshot.path, 1, cell=1 if snapshot.notebook else None),
                fix=INTERNAL_ERROR_FIX,
            )
            result = FileResult(snapshot.path, findings=[finding])
        finally:
            if enabled:
                gc.enable()
        if not syntax_errors:
            result.findings = [f for f in result.findings if f.code != SYNTAX_ERROR_CODE]
        deps = frozenset(result.read.deps) if result.read is not None else frozenset()
        return Checked(snapshot, result, deps)

    @staticmethod
    def collect() -> None:
        """Free what the checks left (their trees and models), once their findings are out:
        one collection of what is not frozen (:func:`graphlint.server.serve` freezes the
        server's own objects), instead of the collector's passes over everything during a
        check (measured on a 1,000-line TF file: the 90th percentile of a check 105 -> 38 ms,
        ~15 ms for the collection; the server runs it when checks pause)."""
        gc.collect()

    def holds(self, path: str, data: bytes) -> set[str]:
        """An open text document's buffer for ``path`` now holds ``data``: the files whose
        analyses read ``path`` (nothing when it held that already, or when a buffer just
        opened holds what the file does)."""
        if path in self._buffers:
            if self._buffers[path] == data:
                return set()
        elif _on_disk(path) == data:
            self._buffers[path] = data
            self._unsaved.discard(path)
            return set()
        self._buffers[path] = data
        self._unsaved.add(path)
        return self._changed(lambda: self.project.set_source(path, data))

    def closed(self, path: str) -> set[str]:
        """The buffer of ``path`` is closed: the file on disk stands for itself again."""
        self._buffers.pop(path, None)
        if path not in self._unsaved:
            return set()
        self._unsaved.discard(path)
        return self._changed(lambda: self.project.set_source(path, None))

    def on_disk(self, paths: list[str], appeared: bool) -> set[str]:
        """Files changed on disk (a file an open buffer stands for is the buffer's)."""
        for path in paths:  # an open buffer that held what the file did: now it differs
            if path in self._buffers and path not in self._unsaved:
                self._unsaved.add(path)
                self._changed(lambda: self.project.set_source(path, self._buffers[path]))
        paths = [p for p in paths if p not in self._buffers]
        if not paths and not appeared:
            return set()
        return self._changed(lambda: self.project.changed(paths, appeared=appeared))

    def _changed(self, update: Callable[[], set[str]]) -> set[str]:
        try:
            return update()
        except Exception:  # graphlint's own failure: what it kept is dropped, the server goes on
            logger.exception("graphlint could not update what it keeps")
            self.project.forget()
            return set()

