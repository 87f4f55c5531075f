"""``graphlint check --fix``: write the fixes of the findings that were reported.

The engine (graphlint.static.engine) keeps the edits each file's rules offered
(:class:`~graphlint.static.model.scopes.Edit`) for the findings that are reported; here they are
applied, a file at a time, each file rewritten whole or left as it was.

A file is rewritten in place, as black and ruff write theirs: the same file (inode), so its
owner, group, mode, ACLs and every hard link to it stay as they were, and a symlink stays a
symlink to it. Before the first byte is written, a backup of the old text is written whole
beside it; a write that fails midway (a full disk, a size limit) is undone from it. A file
whose mode says read-only (``chmod a-w``: root could write it all the same), or in a folder
that is (no backup can go beside it), is left whole with one line on stderr.
"""

from __future__ import annotations

import ast
import errno
import os
import stat
from typing import Callable

from graphlint.reading import read_regular
from graphlint.static.cache import digest
from graphlint.static.engine import FileResult, read_limit


def apply_fixes(results: list[FileResult], warn: Callable[[str], None] | None = None) -> set[tuple[str, str, int, int | None]]:
    """Write each file's edits; return the (path, code, line, cell) of the findings fixed
    (``cell`` is None but in a notebook, whose edits change only its cells' source).

    A file changed since it was checked is left alone. Overlapping edits: the first wins.
    A file that cannot be written (read-only, in a read-only folder, a full disk) is left whole
    and ``warn`` says so in one line; the others are still fixed.
    """
    fixed = set()
    #: each file written, by (device, inode): the digest it was checked with, its edits, those written
    written: dict[tuple[int, int], tuple[str, set, set]] = {}
    for result in results:
        if not result.edits:
            continue
        try:
            data = read_regular(result.path, read_limit(result.path))
        except OSError:
            continue
        try:
            changed = _fixed(result, data)
        except Unfixable as exc:
            if warn is not None:
                warn(f"graphlint: cannot fix {result.path}: {exc} (left unchanged)")
            continue
        notebook = result.notebook
        if changed is None:  # changed since: by the fix of another name of this file (a hard link)?
            done = written.get(_identity(result.path))
            if done is not None and done[0] == result.digest and set(result.edits) <= done[1]:
                fixed |= {(result.path, e.code, *_cell_line(notebook, e.line)) for e in result.edits if e in done[2]}
            continue
        out, chosen = changed
        try:
            if not _rewrite(result.path, data, out):
                continue
        except OSError as exc:
            if warn is not None:
                outcome = f"its old text is in {exc.backup}" if isinstance(exc, _HalfWritten) else "left unchanged"
                warn(f"graphlint: cannot fix {result.path}: {_reason(exc)} ({outcome})")
            continue
        written[_identity(result.path)] = (result.digest, set(result.edits), set(chosen))
        fixed |= {(result.path, e.code, *_cell_line(notebook, e.line)) for e in chosen}
    return fixed


def _identity(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return (st.st_dev, st.st_ino)


class Unfixable(ValueError):
    """Why a file's fixes are not written, though it holds the bytes that were checked."""


def fixed_source(result: FileResult, data: bytes):
    """``(the file's bytes with its fixes applied, the edits chosen)`` for ``data``, the file's
    bytes, or None when they are not the bytes that were checked or the fixes cannot be
    written (:func:`_fixed`). Overlapping edits: the first wins. Changes nothing on disk
    (``--diff`` shows it, ``--fix`` writes it)."""
    try:
        return _fixed(result, data)
    except Unfixable:
        return None


def _fixed(result: FileResult, data: bytes):
    """:func:`fixed_source`, raising :class:`Unfixable` when the fixes would change more than
    they say: the file's encoding (a coding cookie's codec) does not give its bytes back from
    its text (``unicode_escape`` writes each line break as ``\\n``, ``utf-7`` re-encodes
    backslashes, ``idna`` fails), or the fixed text would not parse (a plugin's edit can be
    anything)."""
    if digest(data) != result.digest:
        return None
    notebook = result.notebook
    encoding = _encoding(result)
    text = data.decode(encoding)
    try:
        if text.encode(encoding) != data:
            raise UnicodeError
    except (UnicodeError, LookupError):
        raise Unfixable(f"its encoding ({encoding}) does not write its text back to the same bytes") from None
    edits = sorted(set(result.edits), key=lambda e: (e.start, e.end))
    chosen, last_end = [], -1
    for edit in edits:
        if edit.start >= last_end:
            chosen.append(edit)
            last_end = max(edit.end, edit.start + 1)
    module = notebook.source if notebook is not None else text  # the text that was parsed
    for edit in reversed(chosen):
        module = module[: edit.start] + edit.replacement + module[edit.end :]
    try:
        ast.parse(module, filename=result.path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        what = f"line {exc.lineno}" if isinstance(exc, SyntaxError) and exc.lineno else "it"
        raise Unfixable(f"the fixed text would not parse ({what}: {getattr(exc, 'msg', None) or exc})") from None
    text = notebook.apply(text, chosen) if notebook is not None else module
    try:
        return text.encode(encoding), chosen  # utf-8-sig: the codec writes the BOM back
    except (UnicodeError, LookupError):  # the fixed text in a codec that cannot hold it
        raise Unfixable(f"its encoding ({encoding}) cannot hold the fixed text") from None


def _encoding(result: FileResult) -> str:
    return result.notebook.encoding if result.notebook is not None else result.encoding


class _Unwritable(OSError):
    """The file is not to be written (read-only, or no backup can be made): said as is."""

    def __init__(self, reason: str, path: str):
        super().__init__(errno.EACCES, reason, path)


class _HalfWritten(OSError):
    """The write failed midway and the old text could not be written back: it is in ``backup``."""

    def __init__(self, exc: BaseException, backup: str, path: str):
        super().__init__(getattr(exc, "errno", None) or errno.EIO, _reason(exc), path)
        self.backup = backup


def _read_only(mode: int) -> bool:
    """No one may write: ``chmod a-w``, which root's writes would otherwise ignore."""
    return not mode & 0o222


def _rewrite(path: str, old: bytes, new: bytes) -> bool:
    """Write ``new`` in place of ``old``, the bytes ``path`` held when it was checked; False
    when it holds other bytes now (left alone). See the module's docstring."""
    real = os.path.realpath(path)  # a symlink stays a symlink, and its file is written
    folder = os.path.dirname(real)
    fd = os.open(real, os.O_RDWR | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _Unwritable("not a regular file", path)
        if _read_only(st.st_mode):
            raise _Unwritable("the file is read-only", path)
        if _read_all(fd) != old:  # changed since it was checked
            return False
        try:
            writable = os.access(folder, os.W_OK) and not _read_only(os.stat(folder).st_mode)
        except OSError:
            writable = False
        if not writable:
            raise _Unwritable("its folder is read-only: no backup can be written beside it", path)
        backup = _backup(folder, os.path.basename(real), old)
        try:
            _write_all(fd, new)
        except BaseException as exc:
            try:
                _write_all(fd, old)
            except BaseException:
                raise _HalfWritten(exc, backup, path) from exc
            _unlink(backup)
            raise
        _unlink(backup)
        return True
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    """``data`` as the whole content of the file ``fd``, on disk when this returns."""
    os.lseek(fd, 0, os.SEEK_SET)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.ftruncate(fd, len(data))
    os.fsync(fd)


def _backup(folder: str, name: str, data: bytes) -> str:
    """A new file beside the original holding ``data``, on disk before the original is touched."""
    import tempfile

    fd, backup = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".graphlint-backup")
    try:
        _write_all(fd, data)
    except BaseException:
        os.close(fd)
        _unlink(backup)
        raise
    os.close(fd)
    return backup


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__


def _cell_line(notebook, line: int) -> tuple[int, int | None]:
    if notebook is None:
        return line, None
    cell = notebook.cell_at(line)
    return (line - cell.start, cell.number) if cell is not None else (line, None)
