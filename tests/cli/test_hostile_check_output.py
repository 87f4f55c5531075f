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


def test_a_report_and_a_diff_with_stdout_closed_go_to_stderr(tmp_path):
    """Both go through one fallback (graphlint.output): the report as text, the diff in the
    file's own bytes (latin-1 here, which no text stream would give back)."""
    from harness import HANG_GUARD

    source = b"# coding: latin-1\n# caf\xe9\n" + FIXABLE.encode()
    (tmp_path / "a.py").write_bytes(source)
    runs = {}
    for name, args in {"report": "--output-format concise", "diff": "--diff"}.items():
        script = f"'{GRAPHLINT}' check --no-cache {args} a.py >&-; echo rc=$? >&2"
        proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, timeout=HANG_GUARD)
        runs[name] = proc.stderr
    assert runs["report"].startswith(b"a.py:4:6: GL103 ") and runs["report"].endswith(b"rc=1\n"), runs["report"]
    assert b"-with tf.Graph():\n+with tf.Graph().as_default():\n" in runs["diff"] and b"# caf\xe9\n" in runs["diff"]
    assert runs["diff"].endswith(b"rc=1\n") and (tmp_path / "a.py").read_bytes() == source
