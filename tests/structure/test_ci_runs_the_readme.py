"""`.ci/run` runs the README's test command, word for word (the guide's promise: the README's
set-up commands are what CI proves on a fresh machine)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ci_runs_the_readmes_test_command():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    (test_command,) = [c for c in commands if "pytest" in c and "pip install -e '.[test]'" in c]
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_command in ci.splitlines(), test_command
