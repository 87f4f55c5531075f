"""Who sends a signal decides whether `graphlint run` passes it on: the program must get each
signal once, as under `python`. Each program is run both ways, each in a session of its own
(the sender's view: `kill PID`, `os.killpg(0, ...)`, a terminal's Ctrl-C), and says how many
times its handler ran.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import subprocess
import termios
import time

import pytest

from harness import GRAPHLINT, HANG_GUARD, PYTHON, assert_same, run_both, snapshot, write_folder

#: A handler counting the signal; "ready" once it is installed, then Python code running for
#: a while (a signal delivered twice runs the handler twice, not once for both).
COUNTING = """\
import signal, sys, time
signum = getattr(signal, sys.argv[1])
got = []
signal.signal(signum, lambda s, f: got.append(s))
print("ready", flush=True)
start = time.monotonic()
while time.monotonic() - start < 300 and not got:  # (a hang guard: every test sends one)
    time.sleep(0.01)
start = time.monotonic()
while time.monotonic() - start < 0.5:  # a second delivery would come meanwhile
    time.sleep(0.01)
print("handled", len(got), flush=True)
"""


def _both(tmp_path, program: str, args: list[str], send) -> list[tuple[bytes, bytes, int, dict]]:
    """``program`` under python and graphlint run, each the leader of a new session;
    ``send(proc)`` once it printed "ready"."""
    folder = tmp_path / "prog"
    results = []
    for command in ([PYTHON, "prog.py", *args],
                    [GRAPHLINT, "run", "--output", str(tmp_path / "report.txt"), "prog.py", *args]):
        write_folder(folder, {"prog.py": program})
        proc = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            assert proc.stdout.readline() == b"ready\n"
            send(proc)
            out, err = proc.communicate(timeout=HANG_GUARD)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        results.append((out, err, proc.returncode, snapshot(folder)))
    assert (tmp_path / "report.txt").read_text() == "graphlint: no findings.\n"
    return results


@pytest.mark.parametrize("name", ["SIGINT", "SIGQUIT"])
def test_a_signal_sent_to_graphlints_pid_alone_reaches_the_program(tmp_path, name):
    """``kill -INT PID``, an IDE's stop button, a supervisor's ``stopsignal=INT``: only the
    process started gets it (graphlint used to leave SIGINT and SIGQUIT to the terminal, and
    the program never had them)."""
    py, ours = _both(tmp_path, COUNTING, [name], lambda proc: os.kill(proc.pid, getattr(signal, name)))
    assert py == (b"handled 1\n", b"", 0, {"prog.py": COUNTING.encode()})
    assert ours == py


def test_keyboard_interrupt_from_kill_pid_is_caught_by_the_program(tmp_path):
    program = """\
        import time
        try:
            print("ready", flush=True)  # (in the try: the signal may come before the next line)
            time.sleep(60)
        except KeyboardInterrupt:
            with open("saved.txt", "w") as fh:
                fh.write("checkpoint")
            print("interrupted", flush=True)
        """
    py, ours = _both(tmp_path, program, [], lambda proc: os.kill(proc.pid, signal.SIGINT))
    assert py[0] == b"interrupted\n" and py[2] == 0
    assert ours == py


KILLPG = """\
import os, signal, sys, time
signum = getattr(signal, sys.argv[1])
got = []
signal.signal(signum, lambda s, f: got.append(s))
print("ready", flush=True)
os.killpg(0, signum)  # the program's whole process group: itself and what it started
start = time.monotonic()
while time.monotonic() - start < 1.0:
    time.sleep(0.01)
print("handled", len(got), flush=True)
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGUSR1", "SIGHUP", "SIGINT"])
def test_a_signal_the_program_sends_its_own_process_group_reaches_it_once(tmp_path, name):
    """graphlint is in the program's process group: it got the signal too and passed it on,
    so the program's handler ran twice."""
    py, ours = _both(tmp_path, KILLPG, [name], lambda proc: None)
    assert py == (b"handled 1\n", b"", 0, {"prog.py": KILLPG.encode()})
    assert ours == py


def test_a_signal_the_program_sends_its_parent_is_not_turned_back_on_it(tmp_path):
    """Under python the parent is the shell; under graphlint run it is graphlint, which must
    not pass the program's own signal back to it."""
    program = """\
        import os, signal, time
        got = []
        signal.signal(signal.SIGUSR1, lambda s, f: got.append(s))
        print("ready", flush=True)
        os.kill(os.getppid(), signal.SIGUSR1)
        start = time.monotonic()
        while time.monotonic() - start < 1.0:
            time.sleep(0.01)
        print("handled", len(got), flush=True)
        """
    folder = tmp_path / "prog"
    write_folder(folder, {"prog.py": program})
    proc = subprocess.run([GRAPHLINT, "run", "--output", str(tmp_path / "r.txt"), "prog.py"], cwd=folder,
                          capture_output=True, timeout=HANG_GUARD, stdin=subprocess.DEVNULL)
    assert (proc.stdout, proc.stderr, proc.returncode) == (b"ready\nhandled 0\n", b"", 0)


def _on_a_terminal():
    """In the child: a session of its own with the terminal on fd 0 as its controlling one."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _ctrl_c_on_a_terminal(tmp_path, command: list[str]) -> bytes:
    """``command`` on a pseudo-terminal of its own, Ctrl-C typed once it is ready: what it
    wrote there."""
    leader, follower = os.openpty()
    proc = subprocess.Popen(command, cwd=tmp_path / "prog", stdin=follower, stdout=follower, stderr=follower,
                            start_new_session=True, preexec_fn=_on_a_terminal)
    os.close(follower)
    out = b""
    deadline = time.monotonic() + HANG_GUARD
    try:
        typed = False
        while time.monotonic() < deadline:
            # The whole line: the terminal writes "ready" and its "\r\n" in two steps, and the
            # SIGINT it sends flushes what it has not yet handed over (no NOFLSH), which lost
            # the "\r\n" in 2 of 15 runs.
            if not typed and b"ready\r\n" in out:
                os.write(leader, b"\x03")  # the terminal sends SIGINT to its foreground group
                typed = True
            ready, _, _ = select.select([leader], [], [], 1.0)
            if not ready:
                continue
            try:
                data = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's last process closed it
                break
            if not data:
                break
            out += data
        proc.wait(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(leader)
    return out.replace(b"^C", b"")


def test_ctrl_c_on_a_terminal_reaches_the_program_once(tmp_path):
    """The terminal signals the whole foreground process group, graphlint and the program:
    graphlint, told by the kernel's ``si_code`` that the terminal sent it, leaves it."""
    write_folder(tmp_path / "prog", {"prog.py": COUNTING})
    py = _ctrl_c_on_a_terminal(tmp_path, [PYTHON, "prog.py", "SIGINT"])
    ours = _ctrl_c_on_a_terminal(tmp_path, [GRAPHLINT, "run", "--output", str(tmp_path / "r.txt"), "prog.py", "SIGINT"])
    assert py == b"ready\r\nhandled 1\r\n"
    assert ours == py


def _ignore_sigchld() -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)


def test_a_caller_that_ignores_sigchld_still_gets_the_programs_exit_status(tmp_path):
    """A daemon that ignores SIGCHLD passes that on through exec: the kernel then reaps
    graphlint's children itself, and graphlint said the program exited 0 when it exited 3
    (and reported no failure). The program still starts with SIGCHLD ignored, as python."""
    py, ours = run_both(tmp_path, {"prog.py": """\
        import signal, subprocess, sys
        print(signal.getsignal(signal.SIGCHLD), subprocess.run([sys.executable, "-c", "raise SystemExit(4)"]).returncode)
        raise SystemExit(3)
        """}, ["prog.py"], preexec_fn=_ignore_sigchld)
    assert (py.stdout, py.returncode) == (b"1 0\n", 3)  # (SIG_IGN prints as 1)
    assert_same(py, ours)
