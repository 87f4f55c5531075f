"""``graphlint check --fix``: write the fixes of the findings that were reported.

The engine (graphlint.static.engine) keeps the edits each file's rules offered
(:class:`~graphlint.static.model.scopes.Edit`) for the findings that are reported; here they are
applied, a file at a time, each file rewritten whole or left as it was.

A file is rewritten in place, as black and ruff write theirs: the same file (inode), so its
owner, group, mode, ACLs and every hard link to it stay as they were, and a symlink stays a
symlink to it. Before the first byte is written, a backup of the old text is written whole
beside it; a write that fails midway (a full disk, a size limit) is undone from it. A file
whose mode says read-only (``chmod a-w``: root could write it all the same), or in a folder
that is (no backup can go beside it), is left whole with one line on stderr. The writer holds
an advisory lock (``flock``) on the file from its read to its last byte: a second run finds
the file in use and leaves it, and a backup whose file is locked is a live run's, not a
killed one's (the kernel drops a killed process's locks).

A run killed while it writes (``kill -9``, a power cut) leaves the backup: the next run that
checks the file says so (:func:`recover`), and ``--fix`` restores the old text of a file left
half-written, removes a backup the file no longer needs (the write had not begun, or had
ended), and keeps one whose file changed since: the user's original text is never lost.
"""

from __future__ import annotations

import ast
import errno
import os
import re
import stat
from typing import Callable, Iterable

from graphlint.reading import read_regular
from graphlint.static.cache import digest
from graphlint.static.engine import FileResult, read_limit
from graphlint.static.notebook import in_cell


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
                fixed |= {(result.path, e.code, *in_cell(notebook, e.line)) for e in result.edits if e in done[2]}
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
        fixed |= {(result.path, e.code, *in_cell(notebook, e.line)) for e in chosen}
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
        if not _lock(fd, exclusive=True):  # released with the fd, or by the kernel if killed
            raise _Unwritable("another process is writing it (it holds a lock on the file)", path)
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


def _lock(fd: int, exclusive: bool) -> bool:
    """An advisory lock on the file ``fd``, without waiting: False when another process (or
    another open file of this one) holds a conflicting one. Where there is no ``flock``, True."""
    try:
        import fcntl
    except ImportError:  # (not POSIX)
        return True
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # a file system without locks: as without flock
        return True
    return True


def _being_written(path: str) -> bool:
    """Whether a live ``--fix`` holds its lock on ``path`` (:func:`_rewrite`)."""
    try:
        fd = os.open(os.path.realpath(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return False
    try:
        return not _lock(fd, exclusive=False)
    finally:
        os.close(fd)  # (the probe's own lock goes with it)


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


#: The name of a backup of the file ``name`` (:func:`_backup`: ``tempfile``'s random part).
BACKUP_NAME = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.graphlint-backup")


def _backup(folder: str, name: str, data: bytes) -> str:
    """A new file beside the original holding ``data``, on disk before the original is touched
    (mode 0600, as ``tempfile`` makes it)."""
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


# -- a run killed while it wrote -------------------------------------------------------------
def recover(paths: Iterable[str], check: Callable[[str, bytes], FileResult], fix: bool, warn: Callable[[str], None]) -> None:
    """Say each backup a ``--fix`` killed while writing left beside one of ``paths`` (only
    graphlint's: named as :func:`_backup` names them, a regular file of this user's, mode
    0600), and with ``fix`` act on it, before the files are checked. The backup holds the
    file's text before that fix; ``check(path, data)`` checks ``data`` as the file, for the
    fixed text that run was writing. The file holds that text's beginning over the old text's
    rest (the kill came midway): its old text is written back and the backup removed (the
    file is then checked and fixed as any other). It holds the old text (the write had not
    begun) or the fixed one (it had ended): the backup is removed. Anything else is the
    user's since: the backup is kept, and said by every run until the user removes it. A
    backup whose file a run still holds locked (:func:`_rewrite`) is that run's: left to it."""
    for path, backup in _backups(paths):
        if _being_written(path):  # a live run's backup: it removes it itself
            continue
        shown = os.path.join(os.path.dirname(path), os.path.basename(backup))
        try:
            old = read_regular(backup, read_limit(path), follow=False)
            now = read_regular(path, read_limit(path))
        except OSError:
            continue
        said = f"graphlint: {path}: a --fix was interrupted"
        fixed = fixed_source(check(path, old), old) if now != old else None
        new = fixed[0] if fixed is not None else old
        if now not in (old, new) and not _half_written(now, old, new):
            warn(f"{said}, and the file has changed since: its text before that fix is in {shown} "
                 "(kept: compare it and remove it)")
            continue
        restore = now not in (old, new)
        when = "while writing it, and left it half-written" if restore else "before it wrote the file" if now == old else "after it wrote the file"
        if not fix:
            what = "`graphlint check --fix` restores it from" if restore else "`graphlint check --fix` removes"
            warn(f"{said} {when} ({what} its backup {shown})")
            continue
        if restore:
            try:
                if not _rewrite(path, now, old):
                    continue  # changed meanwhile: said by the next run
            except OSError as exc:
                warn(f"{said} {when}; its text cannot be restored from {shown}: {_reason(exc)} (kept)")
                continue
        _unlink(backup)
        warn(f"{said} {when}: {'its text is restored from its backup, ' if restore else 'its backup, '}{shown}, is removed")


def _backups(paths: Iterable[str]) -> list[tuple[str, str]]:
    """``(path, backup)`` for each of graphlint's backups beside one of ``paths`` (beside the
    file a symlink names), the newest first: one folder listing per folder."""
    wanted: dict[str, list[tuple[str, str]]] = {}  # folder -> (file name, path)
    for path in paths:
        real = os.path.abspath(path)
        try:
            if stat.S_ISLNK(os.lstat(real).st_mode):  # its backup goes beside the file it names
                real = os.path.realpath(real)
        except OSError:
            continue
        wanted.setdefault(os.path.dirname(real), []).append((os.path.basename(real), path))
    found = []
    uid = os.getuid() if hasattr(os, "getuid") else None
    for folder, names in wanted.items():
        try:
            with os.scandir(folder) as entries:
                backups = [e for e in entries if e.name.endswith(".graphlint-backup") and BACKUP_NAME.fullmatch(e.name)]
        except OSError:
            continue
        if not backups:
            continue
        by_name: dict[str, list[str]] = {}
        for name, path in names:
            by_name.setdefault(name, []).append(path)
        for entry in backups:
            name = BACKUP_NAME.fullmatch(entry.name).group("name")  # type: ignore[union-attr]
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            ours = stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and (uid is None or st.st_uid == uid)
            if ours and name in by_name:
                found.append((st.st_mtime_ns, by_name[name][0], entry.path))
    return [(path, backup) for _, path, backup in sorted(found, reverse=True)]


def _half_written(now: bytes, old: bytes, new: bytes) -> bool:
    """Whether ``now`` is what an in-place write of ``new`` over ``old`` (:func:`_write_all`)
    leaves when it stops: ``new``'s first bytes over the rest of ``old``, or, once past
    ``old``'s end, ``new``'s first bytes alone."""
    if len(now) != len(old):
        return len(old) < len(now) <= len(new) and new.startswith(now)
    rest = len(old) - _common_prefix(now[::-1], old[::-1])  # from here on, now is old
    return rest <= min(len(new), _common_prefix(now, new))


def _common_prefix(a: bytes, b: bytes) -> int:
    """How many first bytes ``a`` and ``b`` share (by halves: each comparison is one memcmp)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
