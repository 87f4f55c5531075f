"""Where a report goes: a file or a standard stream, on a line of its own, never lost silently
(a closed stream falls back to the other one; a file that cannot be written is said at start-up).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from typing import Callable, TextIO

from graphlint.config import ConfigError


def fresh_line(stream: TextIO) -> None:
    """Start the report on a line of its own: the program's last output on this stream may be
    unterminated (a progress line). A file's last byte says so; a terminal or a pipe cannot be
    asked, so a line break is written there."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):
        return  # not a real stream (a test's capture): nothing to go by
    if stat.S_ISREG(mode):
        try:
            flush(stream)
            with open(f"/proc/self/fd/{fd}", "rb") as fh:
                fh.seek(0, os.SEEK_END)
                if fh.tell() == 0:
                    return
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) == b"\n":
                    return
        except OSError:
            pass
    try:
        stream.write("\n")
    except (OSError, ValueError):
        pass


def check_writable(path: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ConfigError(f"cannot write --output {path}: no such directory")
    if os.path.isdir(path) or not os.access(directory, os.W_OK) or (
        os.path.exists(path) and not os.access(path, os.W_OK)
    ):
        raise ConfigError(f"cannot write --output {path}: permission denied")


def flush(stream: TextIO | None) -> bool:
    if stream is None:
        return False
    try:
        stream.flush()
        return True
    except (AttributeError, OSError, ValueError):  # not a stream, closed, or its device gone
        return False


def write_report(text: str, stream: TextIO | None) -> None:
    """To ``stream``, else (closed: ``>&-``) to the other standard stream: never lost silently."""

    def write(target: TextIO) -> None:
        try:
            target.write(text)
        except UnicodeEncodeError:  # a non-UTF-8 file name on a strict stream: escaped
            encoding = target.encoding or "utf-8"
            target.write(text.encode(encoding, "backslashreplace").decode(encoding))

    _write_to(stream, write)


def write_bytes(data: bytes, stream: TextIO | None) -> None:
    """``data`` (a diff, in its files' own bytes) to ``stream`` as they are, else as
    :func:`write_report` falls back; a text-only stream (an embedding's) gets what it can show."""

    def write(target: TextIO) -> None:
        flush(target)  # what was written as text first comes first
        if hasattr(target, "buffer"):
            target.buffer.write(data)
            target.buffer.flush()
        else:
            target.write(data.decode("utf-8", "replace"))

    _write_to(stream, write)


def _write_to(stream: TextIO | None, write: Callable[[TextIO], None]) -> None:
    """``write(stream)``, else, where ``stream`` is closed (``>&-``: ``EBADF``), ``write`` to the
    other standard stream; any other error is raised."""
    fallback = sys.__stderr__ if stream is not sys.__stderr__ else sys.__stdout__
    for target in (stream, fallback):
        if target is None or getattr(target, "closed", False):
            continue
        try:
            write(target)
            target.flush()
            return
        except (OSError, ValueError) as exc:
            if target is fallback or getattr(exc, "errno", None) not in (errno.EBADF, None):
                raise
