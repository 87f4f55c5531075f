"""Shared test helpers: run a sample program in-process under graphlint, read its markers."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
_MARK = re.compile(r"#.*?\b(GL\d{3})\b")


def expected_markers(path: Path) -> set[tuple[str, int]]:
    """The (code, line) pairs a sample declares with trailing comments like ``# GL101``."""
    expected = set()
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("#") or '"""' in line:
            continue
        for code in _MARK.findall(line):
            expected.add((code, lineno))
    return expected


def run_in_process(path: Path, *args: str, config=None):
    """Run ``path`` as ``__main__`` under instrumentation, in this process.

    Returns ``(findings, outcome)``. TensorFlow's default graph is reset first (a test's own
    choice; graphlint itself never resets anything) so that samples do not see each other.
    """
    import tensorflow as tf

    from graphlint.engine import Linter
    from graphlint.instrument import instrument
    from graphlint.runner import run_program

    tf.compat.v1.reset_default_graph()
    linter = Linter(config)
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        with instrument(linter):
            outcome = run_program(str(path), None, args)
            findings = linter.finish(outcome.status)
    finally:
        os.chdir(cwd)
    return findings, outcome


@pytest.fixture
def run_sample():
    return run_in_process
