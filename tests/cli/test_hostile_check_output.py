"""Where `graphlint check` writes, when it cannot: one line, exit 2, and nothing of the user's
lost without a word."""

from __future__ import annotations

import subprocess

from harness import GRAPHLINT

FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"


def test_fix_of_stdin_with_stdout_closed_is_one_line_and_exit_2(tmp_path):
    """The fixed source has nowhere to go: said so, not an internal error to report."""
    (tmp_path / "a.py").write_text(FIXABLE)
    script = f"'{GRAPHLINT}' check --no-cache --fix - < a.py >&-; echo rc=$? >&2"
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    *lines, status = proc.stderr.strip().splitlines()
    assert status == "rc=2", proc.stderr
    assert lines == ["graphlint: error: cannot write the fixed source: stdout is closed"], proc.stderr
    assert (tmp_path / "a.py").read_text() == FIXABLE
