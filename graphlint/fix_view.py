"""Fixes as the user sees them before and after ``--fix``: which findings have one (``[*]``,
the edits in JSON and SARIF), ``--diff`` (the fixes as a unified diff, nothing written) and
``--show-fixes`` (what was, or would be, fixed, per file and code).

The static engine keeps each file's edits as character offsets into the checked source
(:class:`graphlint.static.model.scopes.Edit`); here they become 1-based line/column ranges of the
file, or of the cell in a notebook, as the findings are located.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from graphlint.findings import Finding
from graphlint.text import plural

if TYPE_CHECKING:
    from graphlint.static.engine import FileResult

    #: a source read from stdin: ``(the path it is checked as, its bytes)``
    Stdin = tuple[str, bytes]


@dataclass(frozen=True)
class TextEdit:
    """Replace ``line:column`` up to ``end_line:end_column`` (exclusive; 1-based characters)
    with ``content``; ``cell`` as in :class:`graphlint.findings.Location`."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str
    cell: int | None = None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "content": self.content,
            "location": {"line": self.line, "column": self.column},
            "end_location": {"line": self.end_line, "column": self.end_column},
        }
        if self.cell is not None:
            out["cell"] = self.cell
        return out


def _bytes(result: FileResult, stdin: Stdin | None) -> bytes | None:
    """The bytes of a result's file: from stdin when it was read from there."""
    if stdin is not None and result.path == stdin[0]:
        return stdin[1]
    try:
        with open(result.path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _source(result: FileResult, stdin: Stdin | None) -> str | None:
    """The checked module text of a result with edits (a notebook's joined cells)."""
    if result.notebook is not None:
        return result.notebook.source
    data = _bytes(result, stdin)
    try:
        return None if data is None else data.decode(result.encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def _positions(text: str) -> Callable[[int], tuple[int, int]]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)

    def at(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    return at


def fixes_of(results: Iterable[FileResult], stdin: Stdin | None = None) -> dict[Finding, tuple[TextEdit, ...]]:
    """Each fixable finding of ``results`` (:class:`graphlint.static.engine.FileResult`) and
    its edits (``stdin``: ``(path, bytes)`` of a source read from stdin)."""
    from graphlint.static.notebook import in_cell

    out: dict[Finding, tuple[TextEdit, ...]] = {}
    for result in results:
        if not result.edits:
            continue
        text = _source(result, stdin)
        if text is None:
            continue
        at = _positions(text)
        by_finding: dict[tuple[str, int, int | None], list[TextEdit]] = {}
        for edit in sorted(set(result.edits), key=lambda e: (e.start, e.end)):
            line, column = at(edit.start)
            end_line, end_column = at(edit.end)
            cell_line, cell = in_cell(result.notebook, line)
            end_cell_line, _ = in_cell(result.notebook, end_line)
            key = (edit.code, *in_cell(result.notebook, edit.line))
            by_finding.setdefault(key, []).append(
                TextEdit(cell_line, column, end_cell_line, end_column, edit.replacement, cell)
            )
        for f in result.findings:
            edits = by_finding.get((f.code, f.location.line, f.location.cell))
            if edits:
                out[f] = tuple(edits)
    return out


def fixed_stdin(result: FileResult, stdin: Stdin) -> bytes:
    """The source read from stdin with its fixes applied (as it was, when there are none)."""
    from graphlint.static.fixes import fixed_source

    changed = fixed_source(result, stdin[1]) if result.edits else None
    return stdin[1] if changed is None else changed[0]


def diffs(results: Iterable[FileResult], stdin: Stdin | None = None) -> tuple[bytes, int, int]:
    """``(a unified diff of every file's fixes, findings it fixes, files)``; writes nothing.

    The diff is in each file's own bytes (its coding cookie's codec, its line ends, its
    byte-order mark), as ``diff`` and git write one: ``patch`` applied to the file gives
    exactly what ``--fix`` writes. Its header names the file in the file system's encoding."""
    import difflib
    import os

    from graphlint.findings import Location
    from graphlint.static.fixes import fixed_source

    parts: list[bytes] = []
    n_fixes, n_files = 0, 0
    for result in results:
        if not result.edits:
            continue
        data = _bytes(result, stdin)
        if data is None:
            continue
        changed = fixed_source(result, data)
        if changed is None or changed[0] == data:
            continue
        new, chosen = changed
        name = os.fsencode(Location(result.path, 1).display_path())
        for line in difflib.diff_bytes(difflib.unified_diff, _rows(data), _rows(new), fromfile=name, tofile=name):
            parts.append(line if line.endswith(b"\n") else line + b"\n\\ No newline at end of file\n")
        n_fixes += len({(e.code, e.line) for e in chosen})
        n_files += 1
    return b"".join(parts), n_fixes, n_files


def _rows(data: bytes) -> list[bytes]:
    """The lines of ``data`` as diff and ``patch`` count them: each ends at ``\\n`` (a ``\\r``,
    a form feed, a ``\\u2028`` is part of its line, where ``str.splitlines`` would break: its
    diff had "no newline" marks inside, which ``patch`` refuses). Bytes, not text: a codec's
    text would come out in stdout's encoding, not the file's."""
    rows = data.split(b"\n")
    return [row + b"\n" for row in rows[:-1]] + ([rows[-1]] if rows[-1] else [])


def fix_list(fixed: list[Finding], *, applied: bool) -> str:
    """``--show-fixes``: per file, how many findings of each code were (or would be) fixed."""
    if not fixed:
        return "graphlint: no fixes.\n" if applied else "graphlint: nothing to fix.\n"
    verb = "fixed" if applied else "would fix"
    lines = [f"graphlint: {verb} {plural(len(fixed), 'finding')}:"]
    by_file: dict[str, Counter] = {}
    names = {}
    for f in fixed:
        by_file.setdefault(f.location.display_path(), Counter())[f.code] += 1
        names[f.code] = f.name
    for path in sorted(by_file):
        lines.append(f"- {path}:")
        for code, n in sorted(by_file[path].items()):
            lines.append(f"    {n} × {code} ({names[code]})")
    return "\n".join(lines) + "\n"
