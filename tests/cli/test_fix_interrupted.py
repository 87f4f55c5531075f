"""A `graphlint check --fix` killed (`kill -9`, a power cut) while it writes a file leaves the
backup of the file's old text beside it (graphlint.static.fixes); the next run tells, and
`--fix` restores or removes it: a file the kill left half-written gets its old text back (and
its fixes written again), a backup the file no longer needs goes, and one whose file changed
since is kept. The user's original text is never lost. It once was: the backup, a hidden
file, was never noticed again, and the next --fix "fixed" the half-written file."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from harness import HANG_GUARD, check

FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n" + "".join(f"x{i} = {i}\n" for i in range(400))
FIXED = FIXABLE.replace("with tf.Graph():", "with tf.Graph().as_default():")

#: `graphlint check --fix` killed by SIGKILL in its in-place write of the fixed text, once
#: `written` of the fixed bytes are written (-1: all of them and the truncation, before the
#: backup is removed); the backup is written whole before (fixes._backup).
KILLED_FIX = """
import os, signal, sys
from graphlint.static import fixes

real, calls, written = fixes._write_all, [], int(sys.argv[1])

def write_all(fd, data):
    calls.append(fd)
    if len(calls) == 1:  # the backup
        return real(fd, data)
    if written < 0:
        real(fd, data)
    else:
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, data[:written])
    os.kill(os.getpid(), signal.SIGKILL)

fixes._write_all = write_all
from graphlint.cli import main
main(["check", "--fix", "--no-cache", "--no-plugins", *sys.argv[2:]])
"""


def killed_fix(path: Path, written: int) -> Path:
    """Run a --fix of ``path`` killed as :data:`KILLED_FIX` says; the backup it left."""
    proc = subprocess.run([sys.executable, "-c", KILLED_FIX, str(written), path.name], cwd=path.parent,
                          capture_output=True, timeout=HANG_GUARD)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    (backup,) = backups(path)
    assert backup.read_bytes() == FIXABLE.encode()
    return backup


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f".{path.name}.*.graphlint-backup"))


@pytest.mark.parametrize("written", [0, len(FIXABLE) // 2, len(FIXED) - 3, -1], ids=["before", "half", "all-but-the-end", "after"])
def test_fix_after_a_killed_fix_restores_or_removes_its_backup(tmp_path, written):
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    backup = killed_fix(path, written)
    if 0 < written:
        assert path.read_text() not in (FIXABLE, FIXED)  # half-written: the old text is only in the backup
    code, out, err = check("--fix", "--no-cache", "--no-plugins", "a.py", cwd=tmp_path)
    assert code == 0, out + err
    assert path.read_text() == FIXED and backups(path) == []
    (line,) = [x for x in err.splitlines() if backup.name in x]
    assert line.startswith("graphlint: a.py: a --fix was interrupted"), err


def test_a_backup_whose_file_changed_since_is_kept_and_told(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    backup = killed_fix(path, len(FIXABLE) // 2)
    path.write_text("print('mine')\n")  # the user wrote it again since
    for args in ([], ["--fix"]):
        code, out, err = check(*args, "--no-cache", "--no-plugins", "a.py", cwd=tmp_path)
        assert code == 0, out + err
        assert path.read_text() == "print('mine')\n" and backup.read_bytes() == FIXABLE.encode()
        (line,) = [x for x in err.splitlines() if backup.name in x]
        assert "changed since" in line and backup.name not in out


def test_a_check_without_fix_tells_and_changes_nothing(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    backup = killed_fix(path, len(FIXABLE) // 2)
    half = path.read_bytes()
    code, out, err = check("--no-cache", "--no-plugins", "a.py", cwd=tmp_path)
    assert path.read_bytes() == half and backup.read_bytes() == FIXABLE.encode()
    (line,) = [x for x in err.splitlines() if backup.name in x]
    assert line == f"graphlint: a.py: a --fix was interrupted while writing it, and left it half-written (`graphlint check --fix` restores it from its backup {backup.name})"


def test_a_file_of_the_users_named_like_a_backup_is_left_alone(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    theirs = tmp_path / ".a.py.abcdefgh.graphlint-backup"
    theirs.write_text("not graphlint's\n")
    theirs.chmod(0o644)
    code, out, err = check("--fix", "--no-cache", "--no-plugins", "a.py", cwd=tmp_path)
    assert path.read_text() == FIXED and theirs.read_text() == "not graphlint's\n"


#: `graphlint check --fix` paused midway through its in-place write (alive, not killed): it
#: prints "paused" once `sys.argv[1]` bytes of the fixed text are written, and writes the rest
#: when a line comes on its stdin.
PAUSED_FIX = """
import os, sys
from graphlint.static import fixes

real, calls, written = fixes._write_all, [], int(sys.argv[1])

def write_all(fd, data):
    calls.append(fd)
    if len(calls) != 2:  # the backup (1), a write of the run's own
        return real(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data[:written])
    print("paused", flush=True)
    sys.stdin.readline()
    os.write(fd, data[written:])
    os.ftruncate(fd, len(data))

fixes._write_all = write_all
from graphlint.cli import main
main(["check", "--fix", "--no-cache", "--no-plugins", *sys.argv[2:]])
"""


def test_a_fix_still_writing_is_left_to_finish(tmp_path):
    # a second run while the first writes: its backup is no killed run's, and the file is not
    # restored under it (before: the second --fix wrote the old text back and removed the
    # backup, and the first then wrote the rest of the fixed text over the old beginning)
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    writer = subprocess.Popen([sys.executable, "-c", PAUSED_FIX, str(len(FIXABLE) // 2), "a.py"], cwd=tmp_path,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline() == "paused\n", writer.stderr.read()
        (backup,) = backups(path)
        half = path.read_bytes()
        for args in ([], ["--fix"]):
            code, out, err = check(*args, "--no-cache", "--no-plugins", "a.py", cwd=tmp_path)
            assert "interrupted" not in err and backup.name not in err, err
            assert path.read_bytes() == half and backups(path) == [backup]
        out, err = writer.communicate("\n", timeout=HANG_GUARD)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert writer.returncode == 0, err
    assert path.read_text() == FIXED and backups(path) == []


def test_a_file_another_process_holds_locked_is_left_unchanged(tmp_path):
    import fcntl
    import os

    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        code, out, err = check("--fix", "--no-cache", "--no-plugins", "a.py", cwd=tmp_path)
    finally:
        os.close(fd)
    assert path.read_text() == FIXABLE and backups(path) == []
    assert err == "graphlint: cannot fix a.py: another process is writing it (it holds a lock on the file) (left unchanged)\n"
    assert code == 1 and "GL103" in out  # its finding is kept
