"""How graphlint reads a file of the user's: only a regular file, never blocking, never without
bound.

A name that passes a regular-file test by its path can still block the read that follows: a
symlink to ``/proc/kmsg`` (a "regular" file whose read never ends, and whose read consumes the
kernel's log), or a file swapped for a FIFO between the test and the open. So the file is
opened without blocking (``O_NONBLOCK``: a FIFO opens at once, writer or not) and its type is
checked on the opened descriptor (``fstat``), which names the file that is read. A file whose
size says 0 is empty and is not read: a real empty file reads as nothing, and a kernel
pseudo-file (``/proc``, ``/sys``) says 0 whatever it would give.
"""

from __future__ import annotations

import os
import stat

#: What a read of a pseudo-file that would block raises (its descriptor does not block).
_WOULD_BLOCK = (BlockingIOError, InterruptedError)


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a directory, not a file to read."""

    def __init__(self, path: str):
        super().__init__(0, "not a regular file", path)


class FileTooLarge(OSError):
    """The file holds more than the reader's limit (``size``: its size, or the bytes read)."""

    def __init__(self, path: str, size: int, limit: int):
        super().__init__(0, "too large", path)
        self.size, self.limit = size, limit


def _open(path: str, follow: bool) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file ``path`` (never blocking), and its fstat."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_head(path: str, n: int, *, follow: bool = True) -> tuple[bytes, os.stat_result]:
    """The first ``n`` bytes (or fewer) of the regular file ``path``, and its stat."""
    fd, st = _open(path, follow)
    try:
        return (os.read(fd, n) if st.st_size else b""), st
    except _WOULD_BLOCK:
        raise NotRegularFile(path) from None
    finally:
        os.close(fd)


def read_regular(path: str, limit: int, *, follow: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises :class:`NotRegularFile`, :class:`FileTooLarge`, or the ``OSError`` of the open
    (``follow=False``: a symlink is refused, as ``O_NOFOLLOW`` refuses it: ``ELOOP``).
    """
    fd, st = _open(path, follow)
    try:
        if st.st_size > limit:
            raise FileTooLarge(path, st.st_size, limit)
        if st.st_size == 0:
            return b""
        chunks, total = [], 0
        while total <= limit:
            try:  # the whole file in one read, then the read that says it ended
                chunk = os.read(fd, max(st.st_size + 1 - total, 1 << 16))
            except _WOULD_BLOCK:  # a pseudo-file with a size, whose read would wait
                raise NotRegularFile(path) from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:  # it grew since the fstat
            raise FileTooLarge(path, total, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


def source_encoding(data: bytes) -> str:
    """The encoding Python reads the source ``data`` with: its BOM's or coding cookie's, else
    UTF-8. Raises SyntaxError for a cookie naming an unknown codec or a BOM beside another one."""
    import io
    import tokenize

    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def decode_source(data: bytes) -> tuple[str, str]:
    """``(encoding, text)`` of the source ``data``, decoded as Python decodes it (a BOM dropped).
    Raises SyntaxError (:func:`source_encoding`), UnicodeDecodeError or LookupError."""
    encoding = source_encoding(data)
    return encoding, data.decode("utf-8-sig" if encoding == "utf-8-sig" else encoding)
