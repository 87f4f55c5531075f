"""The ``graphlint`` command pauses Python's garbage collector while it imports its modules
(graphlint._start.console): ``check`` keeps it paused to the end (the process ends with
``os._exit``), every other command runs with it on, and a collector its caller had turned off
stays off. Each case is a fresh interpreter started as the console script starts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from harness import SAMPLES

#: The console script's start, with the command's callback wrapped to say whether the
#: collector is on when the command runs.
LAUNCHER = """\
import gc, importlib, sys
module, attr, paused = sys.argv[1], sys.argv[2], sys.argv[3] == "paused"
sys.argv = ["graphlint", *sys.argv[4:]]
command = getattr(importlib.import_module(module), attr)
real = command.callback

def spy(*args, **kwargs):
    print("collector on:", gc.isenabled(), file=sys.stderr, flush=True)
    return real(*args, **kwargs)

command.callback = spy
if paused:
    gc.disable()
from graphlint._start import console
console()
"""


def collector_seen(module: str, attr: str, *args: str, paused: bool = False) -> str:
    proc = subprocess.run(
        [sys.executable, "-P", "-c", LAUNCHER, module, attr, "paused" if paused else "on", *args],
        capture_output=True, text=True, timeout=120,
    )
    lines = [line for line in proc.stderr.splitlines() if line.startswith("collector on:")]
    assert len(lines) == 1, proc.stderr[-2000:]
    return lines[0]


@pytest.mark.parametrize(
    "module, attr, args",
    [
        ("graphlint.cli_commands", "rules_command", ["rules"]),
        ("graphlint.cli_commands", "rule_command", ["rule", "GL101"]),
    ],
)
def test_every_command_but_check_runs_with_the_collector_on(module, attr, args):
    assert collector_seen(module, attr, *args) == "collector on: True"


def test_check_runs_with_the_collector_paused():
    args = ["check", "--no-cache", str(SAMPLES / "rules" / "gl101_bad.py")]
    assert collector_seen("graphlint.check_command", "check", *args) == "collector on: False"


def test_a_collector_turned_off_before_the_command_stays_off():
    assert collector_seen("graphlint.cli_commands", "rules_command", "rules", paused=True) == "collector on: False"
