"""What `graphlint check` is run in or given that it cannot use: one line, exit 2, no
internal error to report."""

from __future__ import annotations

import subprocess

import pytest

from harness import GRAPHLINT

FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"


@pytest.mark.parametrize("command", ["check --no-cache {path}", "clean", "rules"])
def test_a_current_folder_that_no_longer_exists_is_one_line_and_exit_2(tmp_path, command):
    """Paths are named from the current folder (and the cache, the configuration found from
    it): gone (removed by another shell, a test's teardown), it is said so."""
    (tmp_path / "a.py").write_text(FIXABLE)
    (tmp_path / "gone").mkdir()
    args = command.format(path=f"'{tmp_path / 'a.py'}'")
    script = f"cd gone && rmdir ../gone && '{GRAPHLINT}' {args}"
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == ["graphlint: error: the current folder no longer exists"], proc.stderr
    assert (tmp_path / "a.py").read_text() == FIXABLE


def _address_space(limit: int):
    import resource

    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_an_endless_stdin_is_read_no_further_than_a_file_and_is_one_gl001(tmp_path):
    """`graphlint check - < /dev/zero` read until memory ran out (here, under a 2 GiB limit,
    an internal error; without one, the machine's memory): stdin is read as a file is, up to
    the engine's limit, and a larger source is one GL001."""
    from harness import HANG_GUARD

    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run([GRAPHLINT, "check", "--no-cache", "--output-format", "concise", "-"], stdin=zero,
                              cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD,
                              preexec_fn=_address_space(2 << 30))
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("-:1:1: GL001 source too large to check (more than the limit of 10 MiB)"), proc.stdout


def test_fix_gives_a_stdin_too_large_to_check_back_whole(tmp_path):
    from harness import HANG_GUARD

    source = b"# a generated line\n" * (11 * 1024 * 1024 // 19)
    proc = subprocess.run([GRAPHLINT, "check", "--no-cache", "--fix", "--stdin-filename", "big.py"], input=source,
                          cwd=tmp_path, capture_output=True, timeout=HANG_GUARD)
    assert proc.returncode == 1 and b"big.py:1:1: GL001 source too large" in proc.stderr, proc.stderr
    assert proc.stdout == source


@pytest.mark.parametrize("args", ["-", "--stdin-filename x.py --fix"])
def test_a_closed_stdin_is_one_line_and_exit_2(tmp_path, args):
    """`graphlint check - <&-`: Python opens no stdin (None); it was "internal error:
    AttributeError ... report it"."""
    from harness import HANG_GUARD, one_line_error

    proc = subprocess.run(["bash", "-c", f"'{GRAPHLINT}' check --no-cache {args} <&-"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=HANG_GUARD)
    one_line_error(proc, "cannot read the source from stdin: it is closed")


def test_fix_of_a_source_typed_on_a_terminal_ends_at_its_first_end_of_file(tmp_path):
    """`graphlint check --fix -` on a terminal: the source ends at ^D, once. A second read
    (for what a source past the limit leaves) waited for another ^D: a hang, not an answer."""
    import os
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: graphlint on the terminal (never back into pytest)
        try:
            os.chdir(tmp_path)
            os.execv(GRAPHLINT, [GRAPHLINT, "check", "--no-cache", "--fix", "--stdin-filename", "x.py"])
        finally:
            os._exit(127)
    out = b""
    status = None
    try:
        for line in FIXABLE.encode().splitlines(keepends=True):
            os.write(fd, line)
        os.write(fd, b"\x04")  # ^D at the start of a line: the end of the source
        deadline = time.monotonic() + 60  # a hang guard: the run takes a fraction of a second
        while status is None and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    out += os.read(fd, 65536)
                except OSError:  # the child is gone: its end of the terminal closed
                    pass
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(code)
    finally:
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    assert status == 0, out
    assert b"with tf.Graph().as_default():" in out, out
