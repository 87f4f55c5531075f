"""A `graphlint` process imports only what its command uses: `graphlint check` none of the
runtime engine (probes, linter, pluggy, the rules' runtime forms), no framework, no reporter
it was not asked for and no entry-point machinery; `graphlint --version` not even the rules or
the static engine. Each command runs as the console script runs it (``console()``, ending with
``os._exit``), and the modules are read as the process ends."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from graphlint import __version__
from harness import HANG_GUARD, SAMPLES

#: The real console() in a fresh interpreter; at its end (``os._exit`` for `check`,
#: ``SystemExit`` for the others), the names in ``sys.modules`` go to the file argv[1] names.
LAUNCHER = """\
import json, os, sys
out, sys.argv = sys.argv[1], ["graphlint", *sys.argv[2:]]
exit_now = os._exit

def report(code):
    with open(out, "w") as fh:
        json.dump(sorted(sys.modules), fh)
    exit_now(code)

os._exit = report
from graphlint.cli import console
try:
    console()
except SystemExit as exc:
    sys.stdout.flush()
    report(exc.code if isinstance(exc.code, int) else 1)
"""

#: What no `graphlint` command but `run`, `server` and the notebook extension may import.
RUNTIME_SIDE = re.compile(
    r"graphlint\.(linter|dispatch|_hookspecs|runner|child|channel|probes|jupyter|server|plugin|testing)(\.|$)"
    r"|graphlint\.rules\.\w+\.(runtime|kernel)$"
    r"|(pluggy|tensorflow|keras|tf_keras|jax|torch|numpy)(\.|$)"
)
#: Rule discovery reads entry_points.txt itself (graphlint.registry).
ENTRY_POINT_MACHINERY = re.compile(r"(importlib\.metadata|email)(\.|$)")
#: One file is checked in this process: no pool, no other reporter than the one asked for, no
#: other command (graphlint.cli.COMMANDS) and no TOML reader (this repository's pyproject.toml
#: names graphlint, but holds no ``[tool.graphlint]``: graphlint.config_files does not parse it).
NOT_FOR_ONE_FILE = re.compile(
    r"graphlint\.(static\.pool|sarif|fix_view|cli_run|cli_commands)$|(multiprocessing|concurrent|tomllib)(\.|$)"
)
#: The static forms' PyTorch parts and the model they need, for a file that names torch only
#: (GL506 declares ``static_words``; GL501 and GL502 import theirs when a file names torch).
TORCH_PARTS = re.compile(
    r"graphlint\.(rules\._torch|rules\.graph_break\.check|rules\.function_retraced\.torch_compile"
    r"|static\.model\.torch_compiled)$"
)


def imported(tmp_path, *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    out = tmp_path / "modules.json"
    proc = subprocess.run(
        [sys.executable, "-P", "-c", LAUNCHER, str(out), *args], capture_output=True, text=True, timeout=HANG_GUARD
    )
    assert out.exists(), proc.stderr[-2000:]
    return proc, json.loads(out.read_text())


def matching(pattern: re.Pattern, modules: list[str]) -> list[str]:
    return [m for m in modules if pattern.match(m)]


@pytest.mark.parametrize("sample", ["gl101_bad.py", "gl101_good.py"])
def test_checking_one_file_imports_no_runtime_engine_framework_or_other_reporter(tmp_path, sample):
    proc, modules = imported(tmp_path, "check", "--no-cache", str(SAMPLES / "rules" / sample))
    assert proc.returncode == (1 if "bad" in sample else 0), proc.stderr[-2000:]
    assert ("GL101" in proc.stdout) == ("bad" in sample)
    assert "graphlint.static.engine" in modules and "graphlint.rules.graph_rebuilt.check" in modules  # it ran
    assert matching(RUNTIME_SIDE, modules) == []
    assert matching(ENTRY_POINT_MACHINERY, modules) == []
    assert matching(NOT_FOR_ONE_FILE, modules) == []
    assert matching(TORCH_PARTS, modules) == []


def test_checking_a_torch_file_imports_the_torch_parts(tmp_path):
    proc, modules = imported(tmp_path, "check", "--no-cache", str(SAMPLES / "torch" / "gl506_torch_bad.py"))
    assert proc.returncode == 1 and "GL506" in proc.stdout, proc.stderr[-2000:]
    assert sorted(matching(TORCH_PARTS, modules)) == [
        "graphlint.rules._torch", "graphlint.rules.function_retraced.torch_compile",
        "graphlint.rules.graph_break.check", "graphlint.static.model.torch_compiled",
    ]
    assert matching(RUNTIME_SIDE, modules) == []


def test_the_version_imports_no_rule_no_static_engine_no_finding(tmp_path):
    proc, modules = imported(tmp_path, "--version")
    assert proc.returncode == 0 and proc.stdout == f"graphlint, version {__version__}\n"
    start = re.compile(r"graphlint\.(registry|rules|static|findings|config_files|check_command|cli_run|cli_commands)(\.|$)|tomllib$")
    assert matching(start, modules) == []
    assert matching(RUNTIME_SIDE, modules) == []
    assert matching(ENTRY_POINT_MACHINERY, modules) == []
