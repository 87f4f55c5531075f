"""The server's process: stdio kept for the protocol, and an end that leaves nothing behind.

The protocol owns stdout: anything else that writes there (a rule plugin's ``print``) would
break the stream, so stdout is moved to stderr and the protocol writes to a copy of the real
one. The process ends when the client says ``exit``, when stdin reaches its end (the client
went away without a word) and when the process that started it is gone (LSP's
``processId``, checked every :data:`PARENT_POLL` seconds): at once, without waiting for a
check still running.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import BinaryIO

#: Seconds between two looks at whether the client's process is alive.
PARENT_POLL = 2.0


def protocol_streams() -> tuple[BinaryIO, BinaryIO]:
    """``(stdin, stdout)`` for the protocol; ``sys.stdout`` (and fd 1) then write to stderr."""
    stdin = sys.stdin.buffer
    stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    try:
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
        sys.stdout = sys.stderr
    except (AttributeError, OSError, ValueError):  # no stderr: stdout is left as it was
        pass
    return stdin, stdout


def end(status: int) -> None:
    """End the process now (the protocol's messages are written and flushed one by one)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    os._exit(status)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True


def watch_parent(pid: int, poll: float = PARENT_POLL) -> threading.Thread | None:
    """End the process once ``pid`` (the client) is gone: it no longer exists, or it was this
    process's parent and no longer is (it died; the process was handed to another)."""
    if os.name != "posix" or pid <= 0 or not alive(pid):
        # os.kill(pid, 0) would end the process on Windows; a pid this process cannot see (a
        # client in another PID namespace: a container) would look gone at once
        return None
    parent = os.getppid() == pid

    def watch() -> None:
        while True:
            time.sleep(poll)
            if not alive(pid) or (parent and os.getppid() != pid):
                end(1)

    thread = threading.Thread(target=watch, name="graphlint-parent-watch", daemon=True)
    thread.start()
    return thread
