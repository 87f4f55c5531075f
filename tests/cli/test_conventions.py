"""Conventions users rely on: findings of `check` on stdout, `python -m graphlint`,
`--statistics` in every format, `--exit-zero`, colour only on a terminal."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from graphlint.cli import main
from harness import HANG_GUARD, CHECK_BAD

BAD = CHECK_BAD


@pytest.fixture
def bad(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text(BAD)
    return "bad.py"


def cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_check_writes_findings_to_stdout_and_nothing_to_stderr(bad):
    result = cli("check", bad)
    assert result.exit_code == 1
    assert "bad.py:4:10: GL301" in result.stdout and "bad.py:6:6: GL103" in result.stdout
    assert result.stderr == ""


def test_check_errors_stay_on_stderr(bad):
    result = cli("check", "missing.py")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("graphlint: error: no such file or directory: missing.py")


def test_python_dash_m_graphlint_is_the_command(bad):
    proc = subprocess.run(
        [sys.executable, "-m", "graphlint", "check", "--select", "GL103", bad],
        capture_output=True, text=True, timeout=HANG_GUARD,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("bad.py:6:6: GL103 ") and proc.stderr == ""
    usage = subprocess.run([sys.executable, "-m", "graphlint", "check", "--bogus"], capture_output=True, text=True, timeout=HANG_GUARD)
    assert usage.returncode == 2 and usage.stderr.startswith("graphlint: error: No such option '--bogus'")


def test_statistics_in_json_is_a_field(bad):
    doc = json.loads(cli("check", "--format", "json", "--statistics", bad).stdout)
    assert doc["statistics"] == [
        {"code": "GL103", "name": "graph-not-default", "count": 1},
        {"code": "GL301", "name": "session-churn", "count": 1},
    ] or doc["statistics"] == [
        {"code": "GL301", "name": "session-churn", "count": 1},
        {"code": "GL103", "name": "graph-not-default", "count": 1},
    ]
    assert "statistics" not in json.loads(cli("check", "--format", "json", bad).stdout)


def test_statistics_in_sarif_are_run_properties(bad):
    doc = json.loads(cli("check", "--format", "sarif", "--statistics", bad).stdout)
    stats = doc["runs"][0]["properties"]["statistics"]
    assert {s["code"]: s["count"] for s in stats} == {"GL103": 1, "GL301": 1}


def test_statistics_in_github_is_one_notice(bad):
    out = cli("check", "--format", "github", "--statistics", bad).stdout
    notices = [line for line in out.splitlines() if line.startswith("::notice")]
    assert len(notices) == 1 and "GL301 session-churn" in notices[0] and "GL103 graph-not-default" in notices[0]
    assert "::notice" not in cli("check", "--format", "github", bad).stdout


def test_exit_zero_leaves_a_failed_programs_status(tmp_path):
    prog = tmp_path / "fails.py"
    prog.write_text("raise SystemExit(7)\n")
    assert cli("run", str(prog)).exit_code == 7
    assert cli("run", "--exit-zero", str(prog)).exit_code == 7


def test_exit_zero_does_not_hide_a_usage_error(bad):
    assert cli("check", "--exit-zero", "--select", "XY9", bad).exit_code == 2


def _on_a_terminal(args, env):
    """Run graphlint with stdout on a pseudo-terminal; returns what the terminal showed."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphlint", *args], stdout=follower, stderr=subprocess.PIPE, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=HANG_GUARD)
    os.close(leader)
    return b"".join(chunks).decode()


@pytest.mark.parametrize("no_color", [None, "1"])
def test_colour_on_a_terminal_unless_no_color(bad, no_color):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    if no_color:
        env["NO_COLOR"] = no_color
    shown = _on_a_terminal(["check", "--select", "GL103", bad], env)
    line = next(line for line in shown.splitlines() if "GL103" in line)
    if no_color:
        assert "\x1b[" not in shown and line.startswith("bad.py:6:6: GL103")
    else:
        assert line.startswith("\x1b[1mbad.py\x1b[0m:6:6: \x1b[1;31mGL103\x1b[0m "), repr(line)


def test_no_colour_when_piped(bad):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    proc = subprocess.run([sys.executable, "-m", "graphlint", "check", bad], capture_output=True, text=True, env=env, timeout=HANG_GUARD)
    assert "\x1b[" not in proc.stdout and "bad.py:6:6: GL103" in proc.stdout


# -- pre-commit: the README's snippet and the hook repository ----------------------------------
NOTEBOOK = {
    "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["import tensorflow as tf\n"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["!pip install -q tensorflow\n", "for i in range(3):\n", "    with tf.compat.v1.Session() as s:\n", "        pass\n"]},
    ],
    "metadata": {"language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def _readme_pre_commit_config() -> str:
    """The `repo: local` snippet of docs/pre-commit.md (the README points there)."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "pre-commit.md").read_text()
    return next(block for block in page.split("```yaml\n")[1:] if "repo: local" in block).split("```", 1)[0]


def test_readme_pre_commit_snippet_is_a_local_python_hook_for_python_and_notebooks():
    config = _readme_pre_commit_config()
    assert "- repo: local" in config and "language: python" in config
    assert "types_or: [python, jupyter]" in config and "entry: graphlint check --force-exclude" in config
    assert "additional_dependencies:" in config


@pytest.mark.slow
def test_pre_commit_readme_snippet_and_try_repo_check_python_files_and_notebooks(tmp_path, pre_commit_snapshot):
    """The README's `repo: local` snippet, with graphlint installed from a snapshot of this
    working tree, and `pre-commit try-repo` on that snapshot: both report the bad file and
    the bad notebook (by cell) and pass the good file."""
    pre_commit, env, snapshot = pre_commit_snapshot
    project = tmp_path / "project"
    project.mkdir()
    (project / "bad.py").write_text(BAD)
    (project / "good.py").write_text("import tensorflow as tf\nwith tf.Graph().as_default():\n    pass\n")
    (project / "bad.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
    config = re.sub(r'additional_dependencies: \[.*\]', f'additional_dependencies: ["{snapshot}"]', _readme_pre_commit_config())
    (project / ".pre-commit-config.yaml").write_text(config)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(cmd, cwd=project, check=True, env=env)
    for args in (["run", "--all-files"], ["try-repo", str(snapshot), "graphlint", "--all-files"]):
        result = subprocess.run([str(pre_commit), *args], cwd=project, capture_output=True, text=True, env=env, timeout=HANG_GUARD)
        output = result.stdout + result.stderr
        assert result.returncode == 1, output
        assert "bad.py:4:10: GL301" in output and "bad.py:6:6: GL103" in output, output
        assert "bad.ipynb:cell 2:3:10: GL301" in output, output
        assert "good.py" not in output.split("hook id: graphlint", 1)[-1], output
