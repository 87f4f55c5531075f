"""``graphlint check`` on the PyTorch samples (samples/torch/): every bad sample yields exactly its
``# GLnnn`` markers — the lines ``graphlint run`` reports there (tests/test_samples.py) — and
every good twin nothing. Reads the files only: no PyTorch needed."""

from __future__ import annotations

import pytest

from conftest import SAMPLES, expected_markers
from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file

TORCH = sorted((SAMPLES / "torch").glob("*.py"))
RULES = [cls for cls in discover_rules(plugins=False).values() if cls.checks_statically()]


@pytest.mark.parametrize("path", TORCH, ids=lambda p: p.name)
def test_graphlint_check_finds_exactly_the_markers_of_each_torch_sample(path):
    found = {(f.code, f.location.line) for f in check_file(str(path), RULES, Config()).findings}
    assert found == expected_markers(path)
