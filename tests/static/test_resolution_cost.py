"""What the cross-module analyses (GL101, GL502, GL503) ask, and what they leave alone (issue 12):
a call that runs once is never resolved, a library's name is never looked for in the tree, and
how many times a loop runs is counted only for a call that leads to a function that rebuilds."""

from __future__ import annotations

import textwrap

from graphlint.rules.function_recreated import check as recreation
from graphlint.rules.graph_rebuilt import check as rebuilds
from graphlint.static.model import project, repeats
from graphlint.static.model.project import Project

HELPER = """
import tensorflow as tf

def make(f):
    return tf.function(f)

def train_step():
    x = tf.compat.v1.placeholder(tf.float32, [None, 4])
    y = tf.compat.v1.layers.dense(x, 2)
    with tf.compat.v1.Session() as sess:
        sess.run(y)
"""


def _tree(tmp_path, main: str):
    (tmp_path / "helper.py").write_text(textwrap.dedent(HELPER))
    path = tmp_path / "main.py"
    path.write_text(textwrap.dedent(main))
    return Project().load(str(path))


def _looked_up(module) -> set:
    return {dotted for _, dotted in module.project.resolutions.get(project.absolute(module), {})}


def test_gl502_does_not_resolve_a_call_that_runs_once(tmp_path):
    module = _tree(tmp_path, """
        import helper
        fn = helper.make(abs)
        """)
    assert recreation.recreated_functions(module, {}) == []
    assert "helper" not in _looked_up(module)


def test_gl502_still_follows_a_call_in_a_loop(tmp_path):
    module = _tree(tmp_path, """
        import helper
        for i in range(10):
            fn = helper.make(abs)
        """)
    hits = recreation.recreated_functions(module, {})
    assert [h.node.lineno for h in hits] == [4]
    assert "helper" in _looked_up(module)


def test_a_library_name_is_never_looked_for_in_the_tree(tmp_path):
    (tmp_path / "numpy.py").write_text("def zeros(n):\n    return n\n")
    module = _tree(tmp_path, """
        import numpy as np
        for i in range(10):
            np.zeros(3)
        """)
    rebuilds.check(module, {})
    recreation.recreated_functions(module, {})
    assert _looked_up(module) == set()


def test_gl101_counts_a_loops_runs_only_for_a_call_that_rebuilds(tmp_path, monkeypatch):
    counted = []
    real = repeats.times_run
    monkeypatch.setattr(repeats, "times_run", lambda module, site: counted.append(site.line) or real(module, site))
    module = _tree(tmp_path, """
        import helper
        for i in range(10):
            print(i)
            helper.make(abs)
            helper.train_step()
        """)
    hits = rebuilds.rebuilt_elsewhere(module)
    assert [h.node.lineno for h in hits] == [6]
    assert counted == [6]
