"""``graphlint server`` processes forked from one Python that imported the server once.

A fresh ``python -m graphlint server`` spends most of its ~0.8 s of CPU importing pygls and
lsprotocol (which builds some 600 attrs classes): the server tests that are about what the
server answers, not how its process starts and ends, start theirs through this module instead.

The test process starts the fork server (:func:`start`: ``python lsp_forkserver.py serve
SOCKET OWNER``, its child, ended and waited for as the process ends, so that the servers' CPU
is counted in the test run's) the first time a test asks for a forked server. The server
command pytest-lsp then runs is ``python -S lsp_forkserver.py launch SOCKET`` (the launcher, a
few milliseconds of CPU): it hands its stdin, stdout and stderr, its environment and its folder
to the fork server, which forks a child that runs ``graphlint server`` on them (what ``python
-m graphlint server`` runs: graphlint._start.console) from a child of its own that waits for it;
the launcher ends with the server's exit status (a signal that ends the server ends it too)
and passes SIGTERM and SIGINT on. The fork server imported the server's modules and nothing
else; it ends once asked (SIGTERM) or once its owner, the test process, is gone.

The environment a launcher hands over must find the same packages as the fork server's (a
forked child has its ``sys.path`` already): servers with rule plugins of their own
(``PYTHONPATH``) start as ``python -m graphlint server`` does (tests/server/lsp_helpers.py).
"""

from __future__ import annotations

import array
import json
import os
import signal
import socket
import sys
import time

#: A hang guard only: how long the test process waits for the fork server to listen, and
#: then to end.
GUARD = 300.0
_started: dict = {}


def _send(conn: socket.socket, data: dict, fds=()) -> None:
    payload = json.dumps(data).encode() + b"\n"
    ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
    conn.sendmsg([payload], ancillary)


def _lines(conn: socket.socket):
    buffered = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return
        buffered += chunk
        while b"\n" in buffered:
            line, buffered = buffered.split(b"\n", 1)
            yield json.loads(line)


def _connected(path: str) -> socket.socket | None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        return conn
    except OSError:
        conn.close()
        return None


# -- in the test process --------------------------------------------------------------------------
def start(path: str, env: dict) -> None:
    """The fork server listening on ``path``, this process's child (started once)."""
    if path in _started:
        return
    import atexit
    import subprocess

    fork_server = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "serve", path, str(os.getpid())],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    _started[path] = fork_server
    atexit.register(end)
    deadline = time.monotonic() + GUARD
    while (conn := _connected(path)) is None:
        assert fork_server.poll() is None, f"the fork server ended with status {fork_server.returncode}"
        assert time.monotonic() < deadline, f"no fork server listens on {path}"
        time.sleep(0.01)
    conn.close()


def end() -> None:
    """End the fork servers this process started, and wait for them (tests/conftest.py's
    ``pytest_unconfigure``: a pytest-xdist worker may end without running ``atexit``)."""
    import subprocess

    while _started:
        _, fork_server = _started.popitem()
        fork_server.terminate()
        try:
            fork_server.wait(GUARD)
        except subprocess.TimeoutExpired:
            fork_server.kill()
            fork_server.wait()


# -- the launcher (the command pytest-lsp starts) -------------------------------------------------
def launch(path: str) -> int:
    conn = _connected(path)
    if conn is None:
        print(f"lsp_forkserver: no fork server listens on {path}", file=sys.stderr)
        return 2
    _send(conn, {"env": dict(os.environ), "cwd": os.getcwd()}, [0, 1, 2])
    for fd in (0, 1):  # the server holds them now: the client sees their ends as the server's
        os.close(fd)
    os.open(os.devnull, os.O_RDWR)
    os.dup2(0, 1)
    messages = _lines(conn)
    pid = next(messages)["pid"]

    def forward(signum, frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, forward)
    ended = next(messages, {"status": 1})["status"]
    if ended < 0:  # ended by a signal: this process too
        signal.signal(-ended, signal.SIG_DFL)
        os.kill(os.getpid(), -ended)
    return ended


# -- the fork server ----------------------------------------------------------------------------
def serve(path: str, owner: int) -> None:
    import graphlint._start  # noqa: F401  what the child runs, imported once here
    import graphlint.cli  # noqa: F401
    import graphlint.server.features  # noqa: F401
    import graphlint.server.lifecycle  # noqa: F401
    import graphlint.server.server  # noqa: F401

    ending = []
    signal.signal(signal.SIGTERM, lambda signum, frame: ending.append(signum))
    go_betweens: set[int] = set()
    if os.path.exists(path):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    listener.settimeout(1.0)
    try:
        while _alive(owner) and not ending:
            _reap(go_betweens, os.WNOHANG)
            try:
                conn, _ = listener.accept()
            except (socket.timeout, InterruptedError):
                continue
            conn.settimeout(None)
            message, ancillary, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(3 * array.array("i").itemsize))
            fds = array.array("i")
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
            while message and not message.endswith(b"\n"):
                chunk = conn.recv(1 << 20)
                message = message + chunk if chunk else b""
            if not message:  # a look whether it listens (start), or a launcher gone midway
                for fd in fds:
                    os.close(fd)
                conn.close()
                continue
            pid = os.fork()
            if pid == 0:
                listener.close()
                _go_between(conn, json.loads(message), list(fds))
            go_betweens.add(pid)
            for fd in fds:
                os.close(fd)
            conn.close()
    finally:
        listener.close()
        if os.path.exists(path):
            os.unlink(path)
        for pid in go_betweens:  # servers still running: ended (each go-between passes it on)
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        _reap(go_betweens, 0)  # waited for, so that their CPU is counted in this process's


def _reap(pids: set[int], flags: int) -> None:
    for pid in list(pids):
        if os.waitpid(pid, flags)[0] == pid:
            pids.discard(pid)


def _go_between(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the fork server's child: fork the server, tell the launcher its pid, then how it
    ended."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    pid = os.fork()
    if pid == 0:
        conn.close()
        _server(request, fds)

    def forward(signum, frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGTERM, forward)
    for fd in fds:
        os.close(fd)
    _send(conn, {"pid": pid})
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    _send(conn, {"status": status})
    os._exit(0)


def _server(request: dict, fds: list[int]) -> None:
    status = 1
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[0] = request["cwd"]  # as ``python -m`` puts it (here it was this file's folder)
        sys.argv = ["graphlint", "server"]
        from graphlint._start import console

        console()
        status = 0
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


if __name__ == "__main__":
    if sys.argv[1] == "launch":
        sys.exit(launch(sys.argv[2]))
    serve(sys.argv[2], int(sys.argv[3]))
