"""`graphlint check` never executes the user's code, whichever way it is started (issue 23):
`python -m graphlint check` put the checked folder first on sys.path, and graphlint's lazy
imports then ran the folder's `tomllib.py`, `symtable.py`, ... A worker that is a fresh
interpreter (forkserver) must not either."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness import HANG_GUARD, cli, shared_folder

NAMES = ["tomllib", "symtable", "pathspec", "concurrent", "multiprocessing", "typing_extensions"]
FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"


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


def shared_run(tmp_path_factory, key: str, command) -> tuple[Path, dict]:
    """``command`` run once per test run (pytest-xdist's workers share it) in a project of 70
    files (enough for a pool) holding a trap for every name of NAMES: the project, and the
    run's exit status and output. A trap that does not run changes nothing, so each name's
    test reads the one run; every name's trap is checked by its own test."""

    def make(folder):
        root = project(folder, files=70)
        for name in NAMES:
            trap(root, name)
        proc = command(root)
        (folder / "run.json").write_text(json.dumps(
            {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}))

    folder = shared_folder(tmp_path_factory, key, make)
    return folder / "project", json.loads((folder / "run.json").read_text())


HOWS = {"m": ["-m", "graphlint"], "m-cli": ["-m", "graphlint.cli"], "flags": ["-X", "dev", "-mgraphlint"]}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("how", sorted(HOWS))
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_python_m_graphlint_check_runs_no_module_of_the_checked_folder(tmp_path_factory, name, how, jobs):
    def command(folder):
        return subprocess.run([sys.executable, *HOWS[how], "check", "--no-cache", "-j", jobs, "."], cwd=folder,
                              capture_output=True, text=True, timeout=HANG_GUARD)

    folder, proc = shared_run(tmp_path_factory, f"never-runs-{how}-{jobs}", command)
    assert not (folder / f"RAN_{name}").exists(), proc["stderr"]
    assert proc["returncode"] == 1 and "a.py:2:6: GL103" in proc["stdout"], proc["stderr"]


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
def test_forkserver_workers_run_no_module_of_the_checked_folder(tmp_path_factory, name):
    def command(folder):
        driver = folder.parent / "driver" / "drive.py"  # not in the checked folder: its folder is sys.path[0]
        driver.parent.mkdir()
        driver.write_text(textwrap.dedent(DRIVER))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
        return subprocess.run([sys.executable, str(driver)], cwd=folder, capture_output=True, text=True,
                              timeout=HANG_GUARD, env=env)

    folder, proc = shared_run(tmp_path_factory, "never-runs-forkserver", command)
    assert not (folder / f"RAN_{name}").exists(), proc["stderr"]
    assert proc["returncode"] == 0 and proc["stdout"].strip() == '["GL103"]', proc["stderr"]


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


def test_python_m_graphlint_cli_does_not_import_rules_from_the_checked_folder(tmp_path):
    dist = tmp_path / "evil-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[graphlint]\nGL900 = evil_rule:Rule\n")
    (tmp_path / "evil_rule.py").write_text("open('PWNED', 'w').close()\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = subprocess.run([sys.executable, "-m", "graphlint.cli", "check", "a.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "PWNED").exists()


def test_check_never_imports_or_runs_files_even_in_parallel(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    body = f"import tensorflow as tf\nopen({str(marker)!r}, 'w').write('x')\nraise SystemExit(9)\n"
    for i in range(70):  # enough files for the process pool
        (tmp_path / f"m{i}.py").write_text(body)
    (tmp_path / "__init__.py").write_text(body)
    (tmp_path / "conftest.py").write_text(body)
    monkeypatch.chdir(tmp_path)
    before = set(sys.modules)
    result = cli("check", "--jobs", "2", ".")
    assert result.exit_code == 0, result.output
    assert not marker.exists()
    checked = {f"m{i}" for i in range(70)} | {"conftest", "__init__"}
    assert not checked & (set(sys.modules) - before)

STATIC_PLUGIN = '''
from graphlint import Rule


class EveryFile(Rule):
    """Flags line 1 of every file.

    ## What it does
    x
    ## Why is this bad?
    x
    ## Example
    x
    ## Use instead
    x
    """

    code = "XY300"
    name = "every-file"
    summary = "every file"
    fix = "none"
    engines = ("static",)

    def check_module(self, module):
        self.report("flagged", module.location(module.tree.body[0]) if module.tree.body else None)
'''

@pytest.mark.parametrize("how", ["none", "flag", "env"])
def test_check_loads_plugins_only_from_entry_points_and_can_disable_them(tmp_path, monkeypatch, how):
    plugin_dir = tmp_path / "site"
    plugin_dir.mkdir()
    (plugin_dir / "xy_static.py").write_text(STATIC_PLUGIN)
    info = plugin_dir / "xy_static-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xy-static\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[graphlint]\nXY300 = xy_static:EveryFile\n")
    monkeypatch.syspath_prepend(str(plugin_dir))
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.py").write_text("import tensorflow as tf\n")
    # a rule module lying in the checked tree (or on the path) but not installed is never loaded
    (work / "graphlint_rules.py").write_text(STATIC_PLUGIN.replace("XY300", "XY400"))
    monkeypatch.chdir(work)
    args = ["check", "--format", "json", "."]
    if how == "flag":
        args.insert(1, "--no-plugins")
    if how == "env":
        monkeypatch.setenv("GRAPHLINT_DISABLE_PLUGINS", "1")
    result = cli(*args)
    codes = {f["code"] for f in json.loads(result.stdout)["findings"]}
    assert "XY400" not in codes
    assert ("XY300" in codes) == (how == "none"), result.output
    if how != "none":
        extra = ["--no-plugins"] if how == "flag" else []
        assert cli("check", *extra, "--select", "XY300", ".").exit_code == 2  # then it is unknown
