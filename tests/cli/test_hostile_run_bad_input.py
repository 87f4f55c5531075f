"""`graphlint run`'s refusals stay one line and exit 2 whatever the environment meant for
the program says."""

from __future__ import annotations

import subprocess

from harness import gl, one_line_error


def test_a_missing_script_under_pythoninspect_is_one_line(tmp_path):
    """(graphlint's Python, started with PYTHONINSPECT=1 too, printed its own SystemExit as a
    traceback and exited 1.)"""
    proc = gl("run", "missing.py", cwd=tmp_path, env={"PYTHONINSPECT": "1"}, stdin=subprocess.DEVNULL)
    one_line_error(proc, "missing.py")
