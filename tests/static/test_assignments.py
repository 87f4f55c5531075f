"""A scope's bindings (``model.values.assignments``) skip the expressions that cannot bind:
they must equal those of a walk of every node of the scope, in the same order."""

from __future__ import annotations

import ast
import textwrap

import pytest

from harness import ROOT, SAMPLES
from graphlint.static.model.module import Module
from graphlint.static.model.values import LEAVES, _bind, assignments, walk_scope

_LOOP_TARGETS = (ast.For, ast.AsyncFor, ast.comprehension)


def every_node(module, scope) -> dict:
    """The bindings found by visiting every node :func:`walk_scope` yields: the reference."""
    out: dict = {}
    body = scope.node.body if scope is not None else module.tree.body
    for node in walk_scope(body, LEAVES):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                _bind(out, t, "=" if isinstance(t, ast.Name) else "?", node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            _bind(out, node.target, "=", node.value)
        elif isinstance(node, ast.AugAssign):
            _bind(out, node.target, "+=", node.value)
        elif isinstance(node, _LOOP_TARGETS):
            _bind(out, node.target, "?", None)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            _bind(out, node.optional_vars, "?", None)
        elif isinstance(node, ast.NamedExpr):
            _bind(out, node.target, "=", node.value)
    if scope is not None:
        for p in scope.params:
            out.setdefault(p, []).append(("?", None))
    return out


def assert_same(text: str, path: str = "m.py") -> None:
    module = Module(path, text, ast.parse(text))
    for scope in [None, *module.functions]:
        assert assignments(module, scope) == every_node(module, scope), (path, scope and scope.qualname)


SOURCES = {
    "comprehension on a later line": """
        x = foo(
            [i for i in range(3)],
        )
        y = {k: v for k, v in items}
    """,
    "walrus": """
        if (n := len(data)) > 3:
            m = (k := 2) + n
        print([y := f(x), y ** 2])
    """,
    "comprehension right after a number": "z = [1for i in y]\nw = 1\n",
    "nested defs and classes of the block itself": """
        def f(a, b=[j for j in range(2)]):
            c = [q for q in a]
            def g():
                d = 1
        class C:
            e = [r for r in range(3)]
            def h(self):
                f = 2
    """,
    "carriage returns": "a = 1\r\nb = [i for i in x]\rc = (d := 3)\n",
    "for, with, augmented and annotated": """
        total: int = 0
        for step, (x, *rest) in enumerate(batches):
            total += step
            with open(p) as fh, lock:
                pass
        async def run():
            async for item in stream:
                got = [z async for z in item]
    """,
    "words that only look like for": "information = format(forward, before)\nfor_ = [v for v in w]\n",
}


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # ``1for``
@pytest.mark.parametrize("text", SOURCES.values(), ids=SOURCES.keys())
def test_bindings_match_a_walk_of_every_node(text):
    assert_same(textwrap.dedent(text))


def test_bindings_match_on_the_samples():
    paths = sorted(SAMPLES.rglob("*.py")) + sorted((ROOT / "graphlint" / "static").glob("*.py"))
    assert paths
    for path in paths:
        assert_same(path.read_text(encoding="utf-8"), str(path))
