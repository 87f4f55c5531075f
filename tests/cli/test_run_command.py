"""`graphlint run`'s command line: what belongs to the program, what graphlint refuses before
starting it (one line, exit 2), and how its report says how the program ended. Plain Python
programs: no TensorFlow is started."""

from __future__ import annotations

import json
import os

import pytest

from harness import GRAPHLINT, gl, one_line_error, unprivileged


def test_everything_after_dash_m_module_belongs_to_the_module(tmp_path):
    (tmp_path / "mod.py").write_text("import sys\nprint(sys.argv[1:])\n")
    proc = gl("run", "-m", "mod", "--help", "--select", "GL1", "-m", "x", cwd=tmp_path)
    assert proc.stdout == "['--help', '--select', 'GL1', '-m', 'x']\n", proc.stderr[-2000:]
    attached = gl("run", "-mmod", "--version", cwd=tmp_path)
    assert attached.stdout == "['--version']\n", attached.stderr[-2000:]


def test_everything_after_the_script_or_dash_belongs_to_the_program(tmp_path):
    (tmp_path / "prog.py").write_text("import sys\nprint(sys.argv)\n")
    proc = gl("run", "-X", "dev", "prog.py", "-X", "--format", "xml", cwd=tmp_path)
    assert proc.stdout == "['prog.py', '-X', '--format', 'xml']\n", proc.stderr[-2000:]
    stdin = gl("run", "-", "--select", cwd=tmp_path, input="import sys\nprint(sys.argv)\n")
    assert stdin.stdout == "['-', '--select']\n", stdin.stderr[-2000:]


@pytest.mark.parametrize(
    "module, message",
    [(".rel", "Relative module names not supported"), ("a.b.missing", "No module named a"),
     ("no_such_module_zz", "No module named no_such_module_zz")],
)
def test_a_module_python_cannot_find_is_refused_before_running(tmp_path, module, message):
    one_line_error(gl("run", "-m", module, cwd=tmp_path), message)


def test_dash_m_without_a_module_is_one_line(tmp_path):
    one_line_error(gl("run", "-m", cwd=tmp_path), "-m")


def test_an_unreadable_script_is_pythons_cant_open_file(tmp_path):
    (tmp_path / "x.py").write_text("print(1)\n")
    os.chmod(tmp_path / "x.py", 0)
    one_line_error(gl("run", "x.py", cwd=tmp_path, prefix=unprivileged()), "can't open file", "Permission denied")


@pytest.mark.parametrize(
    "source, status, line",
    [
        ("print('fine')\n", 0, None),
        ("import sys\nsys.exit(4)\n", 4, "graphlint: the program exited with status 4."),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n", -15,
         "graphlint: the program was killed by signal 15 (SIGTERM)."),
    ],
)
def test_the_report_says_how_the_program_ended(tmp_path, source, status, line):
    (tmp_path / "prog.py").write_text(source)
    text = gl("run", "prog.py", cwd=tmp_path)
    assert text.returncode == status
    assert text.stderr.splitlines()[-1] == (line or "graphlint: no findings."), text.stderr
    as_json = gl("run", "--format", "json", "--output", "r.json", "prog.py", cwd=tmp_path)
    assert as_json.returncode == status
    program = json.loads((tmp_path / "r.json").read_text())["program"]
    assert program == ({"exit_status": status, "signal": None} if status >= 0 else {"exit_status": None, "signal": "SIGTERM"})


def test_graphlint_run_inside_the_programs_own_run_reports_to_its_own_parent(tmp_path):
    """A program that itself runs `graphlint run` (a test harness, say): each run reports
    its own program."""
    (tmp_path / "inner.py").write_text("print('inner ran')\n")
    (tmp_path / "outer.py").write_text(
        f"import subprocess\nproc = subprocess.run([{GRAPHLINT!r}, 'run', 'inner.py'], capture_output=True, text=True)\n"
        "print(proc.returncode, proc.stdout.strip(), proc.stderr.strip().splitlines()[-1])\n"
    )
    proc = gl("run", "outer.py", cwd=tmp_path)
    assert proc.stdout == "0 inner ran graphlint: no findings.\n", proc.stderr[-2000:]
    assert proc.returncode == 0


def test_graphlint_that_cannot_start_in_the_program_says_so_and_exits_2(tmp_path):
    """(The program's own sitecustomize breaks graphlint's engine; asking where JAX is starts
    the engine without importing a framework.)"""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\nsys.modules['graphlint.child'] = None\n")
    (tmp_path / "prog.py").write_text("import importlib.util\nimportlib.util.find_spec('jax')\nprint('ran')\n")
    proc = gl("run", "prog.py", cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site)})
    assert proc.stdout == "ran\n"
    one_line_error(proc, "graphlint could not watch the program (ModuleNotFoundError: ")
