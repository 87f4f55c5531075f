"""`graphlint check` never executes the user's code, whichever way it is started (issue 23):
`python -m graphlint check` put the checked folder first on sys.path, and graphlint's lazy
imports then ran the folder's `tomllib.py`, `symtable.py`, ... A worker that is a fresh
interpreter (forkserver) must not either."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

NAMES = ["tomllib", "symtable", "pathspec", "concurrent", "multiprocessing", "typing_extensions"]
FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"
HANG_GUARD = 180


def trap(folder: Path, name: str) -> Path:
    """``folder/name.py`` that leaves a file behind when it runs."""
    (folder / f"{name}.py").write_text(f"open({str(folder / ('RAN_' + name))!r}, 'w').close()\n")
    return folder / f"RAN_{name}"


def project(tmp_path: Path, files: int = 1) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[tool.graphlint]\nignore = []\n")  # read: tomllib
    (folder / "a.py").write_text(FIXABLE)
    for i in range(files - 1):
        (folder / f"m{i}.py").write_text(f"import tensorflow as tf\nx = {i}\n")
    return folder


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("how", [["-m", "graphlint"], ["-m", "graphlint.cli"], ["-X", "dev", "-mgraphlint"]], ids=["m", "m-cli", "flags"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_python_m_graphlint_check_runs_no_module_of_the_checked_folder(tmp_path, name, how, jobs):
    folder = project(tmp_path, files=70 if jobs == "2" else 1)  # enough files for a pool
    ran = trap(folder, name)
    proc = subprocess.run([sys.executable, *how, "check", "--no-cache", "-j", jobs, "."], cwd=folder,
                          capture_output=True, text=True, timeout=HANG_GUARD)
    assert not ran.exists(), proc.stderr
    assert proc.returncode == 1 and "a.py:2:6: GL103" in proc.stdout, proc.stderr


DRIVER = """
import json, sys, threading
from graphlint.config import load
from graphlint.registry import discover_rules
from graphlint.static import check_files, collect

if __name__ == "__main__":  # (a forkserver worker imports this module again)
    stop = threading.Event()
    threading.Thread(target=stop.wait, daemon=True).start()  # another thread: no fork, a forkserver
    config = load(None, start=".")
    rules = [c for c in discover_rules(plugins=False).values() if c.checks_statically()]
    results = check_files(collect(["."], config), rules, config, jobs=2)
    print(json.dumps(sorted(f.code for r in results for f in r.findings)))
    stop.set()
"""


@pytest.mark.parametrize("name", ["multiprocessing", "concurrent", "symtable", "pathspec"])
def test_forkserver_workers_run_no_module_of_the_checked_folder(tmp_path, name):
    folder = project(tmp_path, files=70)
    ran = trap(folder, name)
    driver = tmp_path / "driver" / "drive.py"  # not in the checked folder: its folder is sys.path[0]
    driver.parent.mkdir()
    driver.write_text(textwrap.dedent(DRIVER))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    proc = subprocess.run([sys.executable, str(driver)], cwd=folder, capture_output=True, text=True, timeout=HANG_GUARD, env=env)
    assert not ran.exists(), proc.stderr
    assert proc.returncode == 0 and proc.stdout.strip() == '["GL103"]', proc.stderr


@pytest.mark.parametrize(
    "argv, module",
    [
        (["python", "-m", "graphlint", "check"], "graphlint"),
        (["python", "-mgraphlint.cli"], "graphlint.cli"),
        (["python", "-Im", "graphlint"], "graphlint"),
        (["python", "-X", "dev", "-W", "error", "-bb", "-m", "graphlint"], "graphlint"),
        (["python", "-Xdev", "-m", "other"], "other"),
        (["python", "--check-hash-based-pycs", "always", "-m", "graphlint"], "graphlint"),
        (["python", "-c", "import graphlint", "-m", "graphlint"], None),
        (["python", "script.py", "-m", "graphlint"], None),
        (["python", "-"], None),
    ],
)
def test_the_module_python_m_runs_is_read_from_its_command_line(argv, module):
    from graphlint._start import main_module

    assert main_module(argv) == module


def test_a_program_run_with_python_m_that_imports_graphlint_keeps_its_path(tmp_path):
    """Only `-m graphlint...` loses the current folder: another module run with -m keeps
    Python's path, graphlint imported or not."""
    (tmp_path / "mine.py").write_text("import sys, graphlint\nprint(sys.path[0])\n")
    (tmp_path / "helper.py").write_text("")
    proc = subprocess.run([sys.executable, "-m", "mine"], cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD)
    assert proc.returncode == 0 and proc.stdout.strip() == str(tmp_path), proc.stderr
