"""The report of ``graphlint run`` is written once, however the program ends.

A program can end without returning to the runner: ``os._exit()``, ``os.exec*()``, SIGTERM,
or Ctrl-C while its main thread is stuck inside TensorFlow's C++ (``session.run`` on a
blocked queue never returns to Python, so Python's own signal handlers never run). For each,
the findings made so far are reported first:

- ``os._exit`` and ``os.execv``/``os.execve`` (which every ``exec*`` variant calls) are
  wrapped for the run: the report, then the real call;
- a helper thread reads a wake-up socket (``signal.set_wakeup_fd``), written by the C-level
  handler the moment a signal arrives, whatever the main thread is doing. On SIGTERM (while
  its disposition is graphlint's, i.e. the program installed none) it reports, then the process
  dies by SIGTERM as it would under python. On Ctrl-C it waits: a main thread that handles the
  KeyboardInterrupt moves on, and the runner reports as usual; one still at the same
  instruction after :data:`STUCK_AFTER` seconds is stuck, and the helper reports and exits 130.

Forked children never report (only the process graphlint started does).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
from typing import Callable

#: Seconds a main thread may stay at one instruction after Ctrl-C before it counts as stuck.
STUCK_AFTER = 2.0


class LastWords:
    """``say(status)`` writes the report the first time it is called in this process."""

    def __init__(self, report: Callable[[int], int]):
        self._report = report  # writes the report for this exit status, returns graphlint's exit code
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self.said = False
        self._restore: list[Callable[[], None]] = []
        self._thread: threading.Thread | None = None
        self._stop = False

    def say(self, status: int) -> int | None:
        """Report once; the exit code graphlint chose, or None when already said (or in a child)."""
        if os.getpid() != self._pid:
            return None
        with self._lock:
            if self.said:
                return None
            self.said = True
        return self._report(status)

    # -- installing --------------------------------------------------------------------------
    def __enter__(self) -> "LastWords":
        self._wrap_exits()
        if threading.current_thread() is threading.main_thread():
            self._watch_signals()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop = True
        for undo in reversed(self._restore):
            try:
                undo()
            except Exception:  # pragma: no cover - best effort on the way out
                pass
        self._restore.clear()

    def _wrap_exits(self) -> None:
        words = self
        real_exit, real_execv, real_execve = os._exit, os.execv, os.execve

        def _exit(status):
            code = words.say(status if isinstance(status, int) else 1)
            real_exit(code if code is not None else status)

        def execv(path, args):
            words.say(0)
            return real_execv(path, args)

        def execve(path, args, env):
            words.say(0)
            return real_execve(path, args, env)

        for name, wrapper in (("_exit", _exit), ("execv", execv), ("execve", execve)):
            original = getattr(os, name)
            wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = original.__name__, original.__name__, original.__doc__
            setattr(os, name, wrapper)
            self._restore.append(lambda name=name, original=original: setattr(os, name, original))

    def _watch_signals(self) -> None:
        try:
            reader, writer = socket.socketpair()
            writer.setblocking(False)
            previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        except (OSError, ValueError):  # no sockets, or not the main thread
            return
        if previous_fd != -1:  # the embedding application has its own: leave it
            signal.set_wakeup_fd(previous_fd)
            reader.close()
            writer.close()
            return

        def on_term(signum, frame):  # the helper thread does the work; see _serve
            pass

        installed = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        if installed:
            signal.signal(signal.SIGTERM, on_term)
        main_id = threading.main_thread().ident

        def in_child():  # a forked child (a multiprocessing worker) dies by SIGTERM as under python
            if signal.getsignal(signal.SIGTERM) is on_term:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                signal.set_wakeup_fd(-1)
            except (OSError, ValueError):
                pass

        _IN_CHILD[:] = [in_child]

        def undo():
            _IN_CHILD.clear()
            if installed and signal.getsignal(signal.SIGTERM) is on_term:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
            if signal.set_wakeup_fd(-1) != writer.fileno():
                pass  # the program set its own since: left as it is
            writer.close()  # wakes the helper: it ends
            reader.close()

        self._restore.append(undo)
        self._thread = threading.Thread(
            target=self._serve, args=(reader, on_term, main_id), name="graphlint-lastwords", daemon=True
        )
        self._thread.start()

    def _serve(self, reader: socket.socket, on_term, main_id: int) -> None:
        while not self._stop:
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data or self._stop:
                return
            for signum in data:
                if signum == signal.SIGTERM and signal.getsignal(signal.SIGTERM) is on_term:
                    self.say(128 + signal.SIGTERM)
                    _die_by(signal.SIGTERM)
                elif (
                    signum == signal.SIGINT
                    and signal.getsignal(signal.SIGINT) is signal.default_int_handler  # not the program's
                    and _stuck(main_id)
                ):
                    self.say(130)
                    _flush_all()
                    _REAL_EXIT(130)


_REAL_EXIT = os._exit
#: What a forked child undoes (graphlint's SIGTERM handler and wake-up socket are the parent's).
_IN_CHILD: list = []


def _after_fork_in_child() -> None:
    for undo in list(_IN_CHILD):
        undo()
    _IN_CHILD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _stuck(main_id: int) -> bool:
    """True when the main thread stays at the same instruction for :data:`STUCK_AFTER` s."""
    import time

    def where():
        frame = sys._current_frames().get(main_id)
        return (id(frame), frame.f_lasti if frame is not None else None)

    first = where()
    deadline = time.monotonic() + STUCK_AFTER
    while time.monotonic() < deadline:
        time.sleep(0.1)
        if where() != first:
            return False
    return True


def _flush_all() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass


def _die_by(signum: int) -> None:
    """End the process by ``signum`` with its default action (from any thread)."""
    import ctypes

    _flush_all()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.signal.restype = ctypes.c_void_p
    libc.signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
    libc.signal(signum, None)  # SIG_DFL
    os.kill(os.getpid(), signum)
    _REAL_EXIT(128 + signum)  # pragma: no cover - the signal ends the process first
