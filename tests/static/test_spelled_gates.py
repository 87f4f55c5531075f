"""The checks that look at every call for a PyTorch or JAX name first ask whether the source
spells ``torch`` / ``jax`` (``module.spells``): an import binds only names it spells, so an ASCII
source without the word has none of them. At the edge: an alias (``from jax import jit as
j``), and identifiers the parser reads in NFKC (``import ｔｏｒｃｈ`` imports ``torch``), where
the text does not spell the word and the check must still run."""

from __future__ import annotations

import ast
import pathlib
import textwrap

import pytest

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.rules.function_recreated import check as recreation
from graphlint.rules.function_recreated.jax_jit import jit_recreated
from graphlint.static.engine import check_file
from graphlint.static.model.module import Module, spells

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples" / "torch"


def _module(source: str) -> Module:
    source = textwrap.dedent(source)
    return Module("m.py", source, ast.parse(source))


TORCH = """
import torch

def f(x):
    return x

for i in range(10):
    g = torch.compile(f)
"""

JAX = """
from jax import jit as j

def f(x):
    return x

for i in range(10):
    g = j(lambda x: f(x))
"""


def test_torch_compile_in_a_loop_is_found():
    module = _module(TORCH)
    assert spells(module, "torch")
    assert [h.node.lineno for h in recreation.torch_recreated(module, {})] == [8]


def test_an_alias_of_jax_jit_is_found():
    module = _module(JAX)
    assert spells(module, "jax")
    assert [h.node.lineno for h in jit_recreated(module)] == [8]


def test_a_source_that_never_spells_the_word_has_none():
    module = _module(TORCH.replace("torch", "other"))
    assert not spells(module, "torch")
    assert recreation.torch_recreated(module, {}) == []
    assert jit_recreated(_module(JAX.replace("jax", "other"))) == []


def test_a_name_read_in_nfkc_still_counts():
    wide = "ｔｏｒｃｈ"  # fullwidth letters: the parser reads them as `torch`
    module = _module(TORCH.replace("torch", wide))
    assert "torch" not in module.text
    assert spells(module, "torch")
    assert [h.node.lineno for h in recreation.torch_recreated(module, {})] == [8]
    jax = _module(JAX.replace("jax", "ｊａｘ"))
    assert [h.node.lineno for h in jit_recreated(jax)] == [8]


def _codes(source: str, path: pathlib.Path) -> list[tuple[str, int]]:
    path.write_text(source, encoding="utf-8")
    result = check_file(str(path), [r for r in discover_rules(plugins=False).values() if r.checks_statically()], Config())
    return sorted((f.code, f.location.line) for f in result.findings)


@pytest.mark.parametrize("sample", ["gl506_torch_bad.py", "gl501_torch_bad_step.py", "gl502_torch_bad_loop.py"])
def test_a_torch_sample_spelled_in_fullwidth_reports_the_same(sample, tmp_path):
    source = (SAMPLES / sample).read_text(encoding="utf-8")
    plain = _codes(source, tmp_path / "plain.py")
    assert plain  # a bad sample: its codes
    assert _codes(source.replace("torch", "ｔｏｒｃｈ"), tmp_path / "wide.py") == plain
