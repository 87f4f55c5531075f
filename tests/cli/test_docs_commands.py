"""Every shell block of the README and docs/ that starts with `graphlint` runs as shown, on the
bundled samples (in a copy: a `--fix` there changes nothing of the checkout), and exits 0 or 1
(nothing found, or findings): never a usage or configuration error. `graphlint run` starts
TensorFlow in a fresh Python: slow."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphlint.cli import main
from harness import HANG_GUARD

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"^```(?:sh|shell|bash|console)\n(.*?)^```", re.M | re.S)


def documented_commands() -> list[tuple[str, str]]:
    """``(page, command)`` for each line of a shell block whose first command is graphlint."""
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in _BLOCK.findall(page.read_text()):
            lines = [line.strip().removeprefix("$ ") for line in block.splitlines()]
            lines = [line for line in lines if line and not line.startswith("#")]
            if lines and lines[0].startswith("graphlint "):
                found += [(str(page.relative_to(ROOT)), line) for line in lines if line.startswith("graphlint ")]
    return found


COMMANDS = documented_commands()


def test_the_readme_shows_commands_to_run():
    assert len([c for page, c in COMMANDS if page == "README.md"]) >= 3


@pytest.fixture
def samples_copy(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "samples", tmp_path / "samples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRAPHLINT_NO_CACHE", "1")
    return tmp_path


@pytest.mark.parametrize(
    "page, command",
    [pytest.param(p, c, marks=[pytest.mark.slow] if c.startswith("graphlint run") else []) for p, c in COMMANDS],
    ids=[f"{p}: {c}" for p, c in COMMANDS],
)
def test_a_documented_command_runs_as_shown(samples_copy, page, command):
    args = shlex.split(command)[1:]
    if args[0] == "run":
        exe = Path(sys.executable).with_name("graphlint")
        proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=HANG_GUARD, cwd=samples_copy,
                              env={**os.environ, "GRAPHLINT_NO_CACHE": "1"})
        status, output = proc.returncode, proc.stdout + proc.stderr
    else:
        result = CliRunner().invoke(main, args)
        status, output = result.exit_code, result.output
    assert status in (0, 1), f"{page}: `{command}` exited {status}:\n{output}"
    assert "graphlint: error" not in output and "Traceback" not in output, output
