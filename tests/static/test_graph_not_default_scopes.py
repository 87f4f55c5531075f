"""GL103's static form reports (and ``--fix`` rewrites) ``with g:`` only when ``g`` is certainly
a ``tf.Graph`` in the scope Python resolves it in (issue 23): a file object bound to the same
name by a walrus, in an enclosing function, by ``except ... as``, by a ``case`` capture, in a
comprehension, through ``global`` or ``nonlocal`` must never become ``g.as_default()``."""

from __future__ import annotations

import textwrap

import pytest

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import apply_fixes, check_file

HEADER = "import tensorflow as tf\n\ng = tf.Graph()\n\n"

#: ``with g:`` on something that is not (certainly) the module's tf.Graph.
NOT_A_GRAPH = {
    "walrus": """
        def f(p):
            if (g := open(p)):
                with g:
                    pass
        """,
    "closure over an enclosing local": """
        def outer(p):
            g = open(p)

            def inner():
                with g:
                    pass
            return inner
        """,
    "except as": """
        def f():
            g = tf.Graph()
            try:
                pass
            except OSError as g:
                pass
            with g:
                pass
        """,
    "case capture": """
        def f(x):
            match x:
                case g:
                    with g:
                        pass
        """,
    "walrus in a comprehension": """
        def f(paths):
            files = [(g := open(p)) for p in paths]
            with g:
                pass
        """,
    "global": """
        def reopen(p):
            global g
            g = open(p)

        with g:
            pass
        """,
    "nonlocal": """
        def outer(p):
            g = tf.Graph()

            def reopen():
                nonlocal g
                g = open(p)
            reopen()
            with g:
                pass
        """,
    "parameter": """
        def f(g):
            with g:
                pass
        """,
}
#: ``with g:`` on a name bound only to tf.Graph() where it resolves: reported and fixed.
A_GRAPH = {
    "module": """
        with g:
            pass
        """,
    "function local": """
        def f():
            h = tf.Graph()
            with h:
                pass
        """,
    "closure over a graph": """
        def outer():
            h = tf.compat.v1.Graph()

            def inner():
                with h:
                    pass
            return inner
        """,
    "a comprehension variable of the same name": """
        def f():
            h = tf.Graph()
            names = [h for h in range(3)]
            with h:
                pass
        """,
    "global read": """
        def f():
            global g
            with g:
                pass
        """,
    "with as_default() as": """
        def f():
            with tf.Graph().as_default() as h:
                pass
            with h:
                pass
        """,
}


def _check(tmp_path, body: str):
    path = tmp_path / "prog.py"
    path.write_text(HEADER + textwrap.dedent(body))
    rules = [discover_rules(plugins=False)["GL103"]]
    return path, check_file(str(path), rules, Config())


@pytest.mark.parametrize("body", NOT_A_GRAPH.values(), ids=NOT_A_GRAPH)
def test_with_on_a_name_not_certainly_a_graph_is_neither_reported_nor_fixed(tmp_path, body):
    path, result = _check(tmp_path, body)
    assert [f for f in result.findings if f.code == "GL103"] == []
    assert result.edits == []
    before = path.read_text()
    apply_fixes([result])
    assert path.read_text() == before


@pytest.mark.parametrize("body", A_GRAPH.values(), ids=A_GRAPH)
def test_with_on_a_name_bound_only_to_a_graph_is_reported_and_fixed(tmp_path, body):
    path, result = _check(tmp_path, body)
    (finding,) = [f for f in result.findings if f.code == "GL103"]
    line = path.read_text().splitlines()[finding.location.line - 1]
    assert line.strip().startswith("with ") and line.rstrip().endswith(":")
    apply_fixes([result])
    fixed = path.read_text().splitlines()[finding.location.line - 1]
    assert fixed == line.replace(":", ".as_default():")
    compile(path.read_text(), str(path), "exec")
