"""`graphlint run`'s refusals stay one line and exit 2 whatever the environment meant for
the program says, and a path python refuses is refused in python's own words."""

from __future__ import annotations

import errno
import os
import subprocess
import threading

import pytest

from harness import HANG_GUARD, PYTHON, gl, one_line_error


def test_a_missing_script_under_pythoninspect_is_one_line(tmp_path):
    """(graphlint's Python, started with PYTHONINSPECT=1 too, printed its own SystemExit as a
    traceback and exited 1.)"""
    proc = gl("run", "missing.py", cwd=tmp_path, env={"PYTHONINSPECT": "1"}, stdin=subprocess.DEVNULL)
    one_line_error(proc, "missing.py")


@pytest.mark.parametrize("arg", ["", ".", "empty", "empty/", "fake", "missing.py", "sub/../missing.py", "x/", "loop"])
def test_a_path_python_refuses_is_refused_in_pythons_words(tmp_path, arg):
    """python names the path it refuses absolute, as it has it: '' and '.' are the current
    folder (one with a ``__main__.py`` is run), a folder is run by its ``__main__`` module
    (a folder named ``__main__.py`` is none), a missing file is "can't open file"."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "fake" / "__main__.py").mkdir(parents=True)
    os.symlink("loop", tmp_path / "loop")
    py = subprocess.run([PYTHON, arg], cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                        timeout=HANG_GUARD)
    assert py.returncode in (1, 2) and py.stderr.startswith(f"{PYTHON}: "), py.stderr
    proc = gl("run", arg, cwd=tmp_path, stdin=subprocess.DEVNULL)
    one_line_error(proc)
    assert proc.stderr == "graphlint: error: " + py.stderr[len(PYTHON) + 2:]


def test_a_fifo_is_left_to_the_programs_python_to_open(tmp_path):
    """python opens a FIFO it is given once and reads the program from it; graphlint's own
    check opened it first (blocking until a writer came, then closing it: the writer's program
    was lost, and the program's python waited for another forever). Here a writer that never
    blocks finds a reader only if the check opens the FIFO."""
    from graphlint.runner import Program

    fifo = tmp_path / "prog.fifo"
    os.mkfifo(fifo)
    checked = threading.Thread(target=Program(script=str(fifo)).check, daemon=True)
    checked.start()
    opened = False
    while checked.is_alive():
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # (a waiting reader: the check)
            opened = True
        except OSError as exc:
            assert exc.errno == errno.ENXIO  # no reader
        checked.join(0.01)
    assert not opened
