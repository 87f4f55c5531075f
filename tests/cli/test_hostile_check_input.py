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
