"""Names the Python ecosystem gives a meaning, which the rules of both engines follow."""

from __future__ import annotations

import os


def is_test_module(path: str) -> bool:
    """A test module by the names pytest and unittest collect: ``test_*.py``, ``*_test.py``,
    ``*_tests.py``, ``tests.py``, ``conftest.py``. A loop there enumerates cases (dtypes,
    shapes, configurations, devices, Hypothesis examples), each test in a graph of its own:
    ``graphlint check`` leaves such code out of the rules about code that runs again and again
    (:attr:`graphlint.rules.Rule.repetition`)."""
    name = os.path.basename(path)
    if not name.endswith(".py"):
        return False
    stem = name[:-3]
    return stem.startswith("test_") or stem.endswith(("_test", "_tests")) or stem in ("tests", "conftest")
