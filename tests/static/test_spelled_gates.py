"""The checks that look at every call for a PyTorch or JAX name first ask whether the source
spells ``torch`` / ``jax`` (``module.spells``): an import binds only names it spells, so an ASCII
source without the word has none of them. At the edge: an alias (``from jax import jit as
j``), and identifiers the parser reads in NFKC (``import ｔｏｒｃｈ`` imports ``torch``), where
the text does not spell the word and the check must still run."""

from __future__ import annotations

import ast
import textwrap

from graphlint.rules.function_recreated import check as recreation
from graphlint.rules.function_recreated.jax_jit import jit_recreated
from graphlint.static.model.module import Module, spells


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
    g = j(f)
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
