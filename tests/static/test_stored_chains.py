"""GL503's guard test reads the chains a file stores into (``repeats._stored_chains``) from one
walk that judges each name where it meets it; the plain walk (``ast.walk``, every node, each
``x = None`` target left out) is the reference it must equal, on every sample and case file."""

from __future__ import annotations

import ast
import pathlib
import textwrap

import pytest

from graphlint.static.model import repeats
from graphlint.static.model.module import Module

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.glob("samples/**/*.py"), *ROOT.glob("tests/static/cases/*.py")])


def _reference(tree: ast.Module) -> set:
    cleared = {
        id(t)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value in (None, False)
        for t in node.targets
    }
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store) and id(node) not in cleared:
            chain = repeats._chain(node)
            if chain is not None:
                found.add(chain)
    return found


def _module(source: str, path: str = "m.py") -> Module:
    return Module(path, source, ast.parse(source))


def test_the_sample_files_are_there():
    assert len(FILES) > 100


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_stored_chains_equal_the_plain_walk(path):
    source = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source)
    except SyntaxError:
        pytest.skip("not Python")
    assert repeats._stored_chains(Module(str(path), source, tree)) == _reference(tree)


def test_names_in_every_place_a_value_is_stored():
    source = textwrap.dedent("""
        a = None
        b = 1
        c, [d, *e] = f()
        g.h.i = 2
        k = False
        for m in n:
            (o := 3)
        with p() as q:
            r += 1
        s: int = 4
        [t for u in v]
        w[x] = 5
        y = z = None
        """)
    chains = repeats._stored_chains(_module(source))
    assert chains == _reference(ast.parse(source))
    assert {("b",), ("c",), ("d",), ("e",), ("g", "h", "i"), ("m",), ("o",), ("q",), ("r",), ("s",), ("u",)} == chains
