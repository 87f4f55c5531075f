"""``graphlint check --fix``: write the fixes of the findings that were reported.

The engine (graphlint.static.engine) keeps the edits each file's rules offered
(:class:`~graphlint.static.module.Edit`) for the findings that are reported; here they are
applied, a file at a time, each file replaced whole or left as it was.
"""

from __future__ import annotations

import os
import stat
from typing import Callable

from graphlint.static.cache import digest, write_beside
from graphlint.static.engine import MAX_BYTES, FileResult


def apply_fixes(results: list[FileResult], warn: Callable[[str], None] | None = None) -> set[tuple[str, str, int]]:
    """Write each file's edits; return the (path, code, line, cell) of the findings fixed
    (``cell`` is None but in a notebook, whose edits change only its cells' source).

    A file changed since it was checked is left alone. Overlapping edits: the first wins.
    A file that cannot be written (read-only, a full disk) is left whole and ``warn`` says so;
    the others are still fixed.
    """
    fixed = set()
    for result in results:
        if not result.edits:
            continue
        try:
            with open(result.path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError:
            continue
        changed = fixed_source(result, data)
        if changed is None:
            continue
        out, chosen = changed
        notebook = result.notebook
        try:
            _replace_file(result.path, out)
        except OSError as exc:
            if warn is not None:
                warn(f"graphlint: cannot fix {result.path}: {exc.strerror or exc} (left unchanged)")
            continue
        fixed |= {(result.path, e.code, *_cell_line(notebook, e.line)) for e in chosen}
    return fixed


def fixed_source(result: FileResult, data: bytes):
    """``(the file's bytes with its fixes applied, the edits chosen)`` for ``data``, the file's
    bytes, or None when they are not the bytes that were checked. Overlapping edits: the first
    wins. Changes nothing on disk (``--diff`` shows it, ``--fix`` writes it)."""
    if digest(data) != result.digest:
        return None
    notebook = result.notebook
    encoding = notebook.encoding if notebook is not None else result.encoding
    text = data.decode(encoding)
    edits = sorted(set(result.edits), key=lambda e: (e.start, e.end))
    chosen, last_end = [], -1
    for edit in edits:
        if edit.start >= last_end:
            chosen.append(edit)
            last_end = max(edit.end, edit.start + 1)
    if notebook is not None:
        text = notebook.apply(text, chosen)
    else:
        for edit in reversed(chosen):
            text = text[: edit.start] + edit.replacement + text[edit.end :]
    return text.encode(encoding), chosen  # utf-8-sig: the codec writes the BOM back


def _replace_file(path: str, data: bytes) -> None:
    """Write ``data`` to a temporary file beside the real file, then rename it over: a write
    that fails midway leaves the file whole. A read-only file is not written."""
    target = os.path.realpath(path)  # a symlink stays a symlink
    if not os.access(target, os.W_OK):
        raise PermissionError(13, "Permission denied", path)
    write_beside(target, data, stat.S_IMODE(os.stat(target).st_mode))


def _cell_line(notebook, line: int) -> tuple[int, int | None]:
    if notebook is None:
        return line, None
    cell = notebook.cell_at(line)
    return (line - cell.start, cell.number) if cell is not None else (line, None)
