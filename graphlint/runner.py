"""``graphlint run``: the program runs as a genuine ``python SCRIPT ARGS`` in a child process.

The child is this same interpreter (``sys.executable``) with the program's own command line,
working directory, environment and standard streams; graphlint adds two things to its
environment: its start-up folder first on ``PYTHONPATH`` (graphlint/_boot: Python imports its
``sitecustomize`` while it starts) and ``GRAPHLINT_RUN``, a private folder where every process of
the run writes its findings (graphlint.child). Python subprocesses of the program inherit both,
or get them back in an environment the program gives them, so they are followed too; the
program's ``os.environ`` shows neither (the start-up hook takes them out of it, not out of the
process's environment). When the program has ended, this process reads the folder, merges what
each process reported (a finding of another process than the program's own names it) and gives
the outcome; it reports it on its own streams, which the program cannot touch.

While the program runs this process only waits for it, and passes on to it SIGTERM, SIGHUP,
SIGUSR1, SIGUSR2, SIGINT and SIGQUIT sent to graphlint by another process (``kill PID``, a
supervisor's stop). A signal from the terminal (Ctrl-C, Ctrl-\\, a hang-up) is not: it goes to
the whole foreground process group, the program in it; nor is one the program sent itself
(``os.killpg(0, ...)`` reached it already; one sent to its parent was never meant for it). A
process that signals graphlint's whole process group (``kill -TERM -- -PGID``) reaches the
program both directly and through graphlint: only a process group of the program's own would
tell the two apart.
"""

from __future__ import annotations

import errno
import os
import pickle
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from types import FrameType
from typing import IO, TYPE_CHECKING, Any, Callable

from graphlint._boot.sitecustomize import CHANNEL_ENV, SETTINGS
from graphlint.channel import Outcome, outcome_of, read_records

if TYPE_CHECKING:
    from graphlint.config import Config

BOOT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_boot")
#: Signals sent to graphlint that are passed on to the program ...
FORWARDED = ("SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2")
#: ... and those passed on only when another process sent them (the terminal's Ctrl-C and
#: Ctrl-\ reach the program themselves): ignored while graphlint cannot tell who sent them.
LEFT_TO_THE_PROGRAM = ("SIGINT", "SIGQUIT")
#: ``si_code`` of a signal the kernel sent (the terminal's, a hang-up): Linux's SI_KERNEL.
_SI_KERNEL = 0x80


class ProgramNotFound(Exception):
    """The script or module to run does not exist; the message is one line."""


class LaunchError(Exception):
    """graphlint could not start or follow the program; the message is one line."""


@dataclass(frozen=True)
class Program:
    """What ``python`` is asked to run: ``script`` (a file, a folder or zipapp with a
    ``__main__.py``, or ``-`` for stdin) or ``module`` (``-m``), with the program's arguments
    and the ``-X``/``-W`` options for its Python."""

    script: str | None = None
    module: str | None = None
    args: tuple[str, ...] = ()
    xoptions: tuple[str, ...] = ()
    warnoptions: tuple[str, ...] = ()

    def command(self) -> list[str]:
        command = [sys.executable]
        for option in self.xoptions:
            command += ["-X", option]
        for option in self.warnoptions:
            command += ["-W", option]
        command += ["-m", self.module] if self.module is not None else [self._script()]
        return command + list(self.args)

    def _script(self) -> str:
        assert self.script is not None, "a Program names a script or a module"
        return self.script

    def check(self) -> None:
        """ProgramNotFound when python would not find the program (for ``-m``: its top-level
        package; python itself says what it cannot find below it)."""
        if self.module is not None:
            _check_module(self.module)
        elif self.script != "-":
            _check_script(self._script())


def _check_script(path: str) -> None:
    """ProgramNotFound, in python's words, when python would refuse ``path``. python names it
    absolute as it is given (``''`` and ``.`` are the current folder), runs a folder or a zip
    archive by its ``__main__`` module (the importer ``sys.path_hooks`` give it), else opens
    the file. A FIFO, a device or a socket is never opened here: the program's python reads it
    (a FIFO's program is read once), and says what it cannot open."""
    shown = _absolute(path)
    try:
        st = os.stat(shown)
    except OSError as exc:
        raise ProgramNotFound(_cannot_open(shown, exc)) from None
    if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
        return
    importer = _importer(shown) if stat.S_ISDIR(st.st_mode) or st.st_size else None
    if importer is not None:
        try:
            found = importer.find_spec("__main__") is not None
        except Exception:  # python says what is wrong with it
            return
        if not found:
            raise ProgramNotFound(f"can't find '__main__' module in {shown!r}")
        return
    if stat.S_ISDIR(st.st_mode):
        return
    try:  # (a regular file: the open does not block)
        os.close(os.open(shown, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)))
    except OSError as exc:
        raise ProgramNotFound(_cannot_open(shown, exc)) from None


def _absolute(path: str) -> str:
    """``path`` as python names it: joined to the current folder, not normalized."""
    if os.path.isabs(path):
        return path
    try:
        here = os.getcwd()
    except OSError:  # the current folder is gone: python keeps the path as it is
        return path
    return here if path in ("", ".") else os.path.join(here, path)


def _cannot_open(path: str, exc: OSError) -> str:
    return f"can't open file {path!r}: [Errno {exc.errno}] {exc.strerror}"


def _importer(path: str) -> Any:
    """What python runs a folder or an archive with (the first of ``sys.path_hooks`` that
    takes it), or None: a plain file."""
    for hook in sys.path_hooks:
        try:
            return hook(path)
        except Exception:  # (ImportError: not this hook's)
            continue
    return None


def _check_module(name: str) -> None:
    import importlib.machinery
    import importlib.util

    if name.startswith("."):
        raise ProgramNotFound("Relative module names not supported")
    top = name.partition(".")[0]
    if not top or top in sys.modules or top in sys.builtin_module_names:
        return
    here = [] if getattr(sys.flags, "safe_path", False) else [os.getcwd()]
    try:  # a top-level name is looked up without running any code
        if importlib.machinery.PathFinder.find_spec(top, here + sys.path[1:]) is not None:
            return
        if importlib.util.find_spec(top) is not None:
            return
    except (ImportError, ValueError):
        return  # python says why
    raise ProgramNotFound(f"No module named {top}")


def run(program: Program, config: Config, plugins: bool = True) -> Outcome:
    """Run ``program`` to its end in a child Python; its findings, merged, and its exit."""
    channel = tempfile.mkdtemp(prefix="graphlint-run-")
    try:
        with open(os.path.join(channel, SETTINGS), "wb") as fh:
            pickle.dump({"config": config, "plugins": plugins}, fh)
        proc, returncode = _run_child(program.command(), _child_env(channel))
        return outcome_of(read_records(channel), proc.pid, returncode)
    finally:
        shutil.rmtree(channel, ignore_errors=True)


def _child_env(channel: str) -> dict[str, str]:
    env = dict(os.environ)
    _undo_locale_coercion(env)
    existing = env.get("PYTHONPATH")
    env["PYTHONPATH"] = BOOT_DIR + (os.pathsep + existing if existing else "")
    env[CHANNEL_ENV] = channel
    return env


#: What Python sets LC_CTYPE to when it starts in the C locale (PEP 538's coercion targets).
_COERCED = ("C.UTF-8", "C.utf8", "UTF-8")


def _undo_locale_coercion(env: dict[str, str]) -> None:
    """``LC_CTYPE`` as graphlint's caller gave it. Python started in the C locale (``LANG=C``)
    sets ``LC_CTYPE=C.UTF-8`` in its own environment (PEP 538); a child given that starts in
    C.UTF-8 instead, without the UTF-8 mode ``python`` itself would have had
    (``sys.flags.utf8_mode``, ``locale.getpreferredencoding()``). The caller's environment is
    the one the process was started with (/proc/self/environ)."""
    if env.get("LC_CTYPE") not in _COERCED:
        return
    try:
        with open("/proc/self/environ", "rb") as fh:
            start = dict(entry.partition(b"=")[::2] for entry in fh.read().split(b"\0") if entry)
    except OSError:
        return
    given = start.get(b"LC_CTYPE")
    if given is None:
        del env["LC_CTYPE"]
    else:
        env["LC_CTYPE"] = os.fsdecode(given)


# -- the child and its streams ------------------------------------------------------------------
def _run_child(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    """Start the child with this process's standard streams and wait for its end, whatever
    signals come meanwhile. A stream with no file descriptor (a caller's capture, as click's
    CliRunner gives) is relayed through a pipe."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    streams: dict[str, Any] = {
        name: _descriptor(getattr(sys, name), fd) for fd, name in enumerate(("stdin", "stdout", "stderr"))
    }
    pending: list[int] = []
    holder: list[subprocess.Popen[bytes]] = []
    restore = _hold_signals(holder, pending)
    start = _ChildStart(relayed=_RELAY in streams.values())
    try:
        try:
            proc = subprocess.Popen(
                command, env=env, close_fds=False,
                stdin=_given(streams["stdin"]), stdout=_given(streams["stdout"]), stderr=_given(streams["stderr"]),
                preexec_fn=start.in_child(),
            )
        except OSError as exc:
            if exc.errno == errno.E2BIG:
                raise LaunchError(_too_big(env)) from None
            raise LaunchError(f"cannot start {command[0]}: {exc.strerror or exc}") from None
        holder.append(proc)
        for signum in pending:
            proc.send_signal(signum)
        relays = _relay(proc, streams)
        returncode = _wait(proc, start.waited) if start.waited else proc.wait()
        for relay in relays:
            relay.join()
        return proc, returncode
    finally:
        start.undo()
        restore()


def _too_big(env: dict[str, str]) -> str:
    """Why the child could not start when the system refused its arguments and environment
    as too large (E2BIG): graphlint's own start took the same ones, but for what it adds."""
    def size(environ: Any) -> int:  # as the kernel counts them: the strings and their pointers
        return sum(len(os.fsencode(k)) + len(os.fsencode(v)) + 2 + 8 for k, v in environ.items())

    added = [name for name in ("PYTHONPATH", CHANNEL_ENV) if env.get(name) != os.environ.get(name)]
    return (
        f"cannot start the program: its arguments and environment are at the system's limit (E2BIG), and "
        f"graphlint adds {size(env) - size(os.environ)} bytes of environment to them ({' and '.join(added)}: "
        f"they start graphlint in the program's python and say where it reports) and gives its python's "
        f"full path as argv[0]; shorten the program's arguments or environment"
    )


class _ChildStart:
    """What graphlint changes in itself while the child runs, and undoes in the child before
    its exec, so that the program starts with the signals as graphlint's caller left them:

    - the signals graphlint passes on are blocked in this thread, to be taken with
      ``sigtimedwait`` (:func:`_wait`), from before the child starts: none is missed;
    - SIGCHLD, when the caller ignored it (a daemon's habit, inherited through exec), takes its
      default: the kernel would otherwise reap the child itself and its exit status be lost
      (graphlint said 0 for a program that failed); the program still starts with it ignored.
    """

    def __init__(self, relayed: bool) -> None:
        self.waited: set[int] = set()
        self.mask: set[int] | None = None  # the mask before, when graphlint changed it
        self.children_ignored = False
        if threading.current_thread() is not threading.main_thread():
            return
        try:
            if signal.getsignal(signal.SIGCHLD) is signal.SIG_IGN:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                self.children_ignored = True
        except (AttributeError, OSError, ValueError):
            pass
        if relayed or not hasattr(signal, "sigtimedwait") or not _single_threaded():
            # another thread (a relay started later, a caller's own) would take the signals
            # unblocked, and its preexec_fn fork be unsafe: the handlers pass them on
            return
        names = (*FORWARDED, *LEFT_TO_THE_PROGRAM)
        waited = {getattr(signal, name) for name in names if hasattr(signal, name)}
        # not a signal ignored when graphlint started: blocked, it would be kept for the wait
        self.waited = {signum for signum in waited if _held(signum)} | {signal.SIGCHLD}
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, self.waited)

    def in_child(self) -> Callable[[], None] | None:
        """The ``preexec_fn`` that gives the child the caller's signals back, if one is needed."""
        if self.mask is None and not self.children_ignored:
            return None
        return self.undo

    def undo(self) -> None:
        if self.mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        if self.children_ignored:
            signal.signal(signal.SIGCHLD, signal.SIG_IGN)


def _single_threaded() -> bool:
    """Whether this process runs one thread (the ``graphlint`` command does; a caller that
    imported a framework, say, runs threads of the framework's own)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return threading.active_count() == 1


_RELAY = object()


def _given(fd: Any) -> Any:
    """What Popen is given for a standard stream: its descriptor, or a pipe to relay it."""
    return subprocess.PIPE if fd is _RELAY else fd


def _descriptor(stream: IO[str] | None, standard: int) -> Any:
    """The file descriptor the child is given for ``stream``: None for this process's own
    (``standard``, or closed), or _RELAY when the stream has none."""
    if stream is None:
        return None
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return _RELAY
    return None if fd == standard else fd


def _relay(proc: subprocess.Popen[bytes], streams: dict[str, Any]) -> list[threading.Thread]:
    threads = []
    if streams["stdin"] is _RELAY:
        threads.append(_thread(_feed, sys.stdin, proc.stdin))
    for name in ("stdout", "stderr"):
        if streams[name] is _RELAY:
            threads.append(_thread(_copy, getattr(proc, name), getattr(sys, name)))
    return threads


def _thread(target: Callable[..., None], *args: Any) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True, name="graphlint-run-relay")
    thread.start()
    return thread


def _feed(source: Any, pipe: IO[bytes]) -> None:
    try:
        data = source.buffer.read() if hasattr(source, "buffer") else source.read().encode()
        pipe.write(data)
    except (OSError, ValueError):
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def _copy(pipe: Any, stream: Any) -> None:
    target = getattr(stream, "buffer", None)
    for chunk in iter(lambda: pipe.read1(65536), b""):
        try:
            if target is not None:
                target.write(chunk)
            else:
                stream.write(chunk.decode(errors="replace"))
            stream.flush()
        except (OSError, ValueError):
            pass
    pipe.close()


def _wait(proc: subprocess.Popen[bytes], waited: set[int]) -> int:
    """The child's exit status, passing on the signals sent to graphlint meanwhile that did not
    reach the program already (:func:`_reached_the_program`). ``waited``: the signals blocked
    in this thread (:class:`_ChildStart`), taken with ``sigtimedwait``, which says who sent
    each; SIGCHLD among them wakes the wait when the child ends."""
    while proc.poll() is None:
        info = signal.sigtimedwait(waited, 1.0)
        if info is None or info.si_signo == signal.SIGCHLD or _reached_the_program(info, proc.pid):
            continue
        try:
            proc.send_signal(info.si_signo)
        except OSError:
            pass
    return proc.wait()


def _held(signum: int) -> bool:
    """Whether graphlint holds ``signum`` while the child runs (:func:`_hold_signals`: not one
    ignored when graphlint started, which a blocked signal would no longer be)."""
    try:
        return signal.getsignal(signum) is not signal.SIG_IGN
    except (OSError, ValueError):
        return False


def _reached_the_program(info: signal.struct_siginfo, child: int) -> bool:
    """Whether a signal graphlint got (``info``: sigtimedwait's) is not for graphlint to pass
    on: the kernel's (the terminal's Ctrl-C goes to the foreground process group, the program
    in it), or sent by the program or a process it started."""
    if info.si_code == _SI_KERNEL:
        return True
    sender = info.si_pid
    for _ in range(64):  # the sender's ancestors, up to the program
        if sender == child:
            return True
        if sender <= 1 or sender == os.getpid():
            return False
        sender = _parent(sender)
    return False


def _parent(pid: int) -> int:
    """``pid``'s parent process (0 when it cannot be read: it has ended, or no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        return int(stat[stat.rindex(b")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _hold_signals(holder: list[subprocess.Popen[bytes]], pending: list[int]) -> Callable[[], None]:
    """While the child runs: forwarded signals go to it, Ctrl-C is left to it. Python-level
    handlers only (an exec resets them in the child). A signal ignored when graphlint started
    (``nohup``, ``trap '' INT``, a shell's background job) stays ignored here, so the program
    inherits it ignored, as under ``python``."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def forward(signum: int, frame: FrameType | None) -> None:
        if holder:
            try:
                holder[0].send_signal(signum)
            except OSError:
                pass
        else:
            pending.append(signum)

    def leave(signum: int, frame: FrameType | None) -> None:
        pass

    saved: list[tuple[int, Any]] = []
    for names, handler in ((FORWARDED, forward), (LEFT_TO_THE_PROGRAM, leave)):
        for name in names:
            signum = getattr(signal, name, None)
            if signum is None:
                continue
            try:
                if signal.getsignal(signum) is signal.SIG_IGN:
                    continue
                saved.append((signum, signal.signal(signum, handler)))
            except (OSError, ValueError):
                pass

    def restore() -> None:
        for signum, previous in saved:
            try:
                signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
            except (OSError, ValueError, TypeError):
                pass

    return restore
