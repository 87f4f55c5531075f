"""Long runs (issue 6): what the rules and probes keep stays bounded over hundreds of graphs,
hundreds of fetch structures and a hundred thousand runs. In-process, real TensorFlow."""

from __future__ import annotations

import gc
import re

import pytest
import tensorflow as tf  # noqa: E402  (a test dependency: if missing, this module fails loudly instead of skipping)

#: The long runs at full length are slow; the same test at a tenth of the length is in the fast
#: loop (per-graph or per-run state grows at any length: the short run finds it too).
LONG = pytest.mark.slow(reason="the same test at a tenth of the length is in the fast loop")


def _state_size(obj, depth: int = 2) -> int:
    """How many entries a rule or probe holds in its containers (two levels deep)."""
    total = 0
    for value in vars(obj).values():
        total += _container_size(value, depth)
    return total

def _container_size(value, depth):
    if isinstance(value, (dict, list, set, tuple, frozenset)) or hasattr(value, "_data"):
        inner = getattr(value, "_data", value)
        items = inner.values() if isinstance(inner, dict) else inner
        size = len(inner)
        if depth > 1:
            size += sum(_container_size(v, depth - 1) for v in list(items))
        return size
    if hasattr(value, "__dict__") and depth > 1 and type(value).__module__.startswith("graphlint.rules"):
        return sum(_container_size(v, depth - 1) for v in vars(value).values())
    return 0

def _churn_graphs(n: int) -> None:
    import numpy as np

    v1 = tf.compat.v1
    for i in range(n):
        graph = tf.Graph()
        with graph.as_default():
            x = v1.placeholder(tf.float32, [2], name="x")
            w = v1.Variable(tf.ones([2]), name="w")
            y = x * w
            init = v1.global_variables_initializer()
        for _ in range(3):  # GL301's per-graph count and GL303's open sessions
            sess = v1.Session(graph=graph)
            sess.run(init)
            sess.run(y, {x: np.ones(2, np.float32)})
            with graph.as_default():
                z = y + 1.0  # an op after the graph ran (GL102's state)
            sess.run(z, {x: np.ones(2, np.float32)})
            sess.close()
        del graph, sess, x, w, y, z, init

@pytest.mark.parametrize("scale", [pytest.param(0.1, id="20-graphs"), pytest.param(1, id="200-graphs", marks=LONG)])
def test_rule_and_probe_state_stays_bounded_over_hundreds_of_graphs(graph_probes, scale):
    """State measured after 100 and after 200 graphs (each run by three sessions; a tenth of
    that in the fast loop) must not have grown: any per-graph entry kept shows as growth, and
    no state holds more than 50 entries. (2,000 graphs took 8 minutes on CI's two cores;
    bench/memory.py churns 10,000.)"""
    from graphlint.linter import Linter
    from graphlint.instrument import instrument
    from graphlint.rules import Rule

    linter = Linter(warn=lambda m: None)
    sizes = []
    with instrument(linter, warn=lambda m: None):
        rules = [p for p in linter.pm.get_plugins() if isinstance(p, Rule)]
        for n in (25, 75, 100):
            _churn_graphs(round(n * scale))
            gc.collect()
            sizes.append({type(r).__name__: _state_size(r) for r in rules} | {"probe": _state_size(graph_probes[0])})
    grown = {k: (sizes[1][k], sizes[2][k]) for k in sizes[0] if sizes[2][k] > sizes[1][k] or sizes[2][k] > 50}
    assert grown == {}, f"state that grows with the number of graphs (after 100 vs 200): {grown}"
    findings = linter.finish()
    codes = {f.code for f in findings}
    assert "GL000" not in codes and {"GL301", "GL102"} <= codes
    (churn,) = [f for f in findings if f.code == "GL301"]
    assert f"created here {round(600 * scale)} times" in churn.message

def test_run_signatures_per_session_are_capped(monkeypatch):
    from graphlint.probes import tf_sessions

    monkeypatch.setattr(tf_sessions, "_SIGNATURES_PER_SESSION", 50)
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0, name="c")
    from graphlint.linter import Linter
    from graphlint.instrument import instrument

    linter = Linter(warn=lambda m: None)
    with instrument(linter, warn=lambda m: None):
        probe_sessions = []
        with v1.Session(graph=graph) as sess:
            for k in range(1, 400):
                sess.run(["c:0"] * (k % 200 + 1))  # up to 200 distinct fetch structures
            import gc as _gc

            probe_sessions = [o for o in _gc.get_objects() if type(o).__name__ == "_SessionInfo"]
            assert probe_sessions and all(len(info.signatures) <= 50 for info in probe_sessions)
    (fetch,) = [f for f in linter.finish() if f.code == "GL302"]
    # past the cap the session is saturated: memory stays bounded, the finding is still made,
    # and no combination is ever counted twice (200 distinct ones exist; 50 are remembered)
    assert int(re.search(r"ran (\d+) distinct", fetch.message).group(1)) == 50

@pytest.mark.parametrize("runs", [pytest.param(10_000, id="10k"), pytest.param(100_000, id="100k", marks=LONG)])
def test_a_hundred_thousand_runs_keep_graphlint_state_constant(runs):
    from graphlint.linter import Linter
    from graphlint.instrument import instrument
    from graphlint.rules import Rule

    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [])
        y = x + 1.0
    linter = Linter(warn=lambda m: None)
    with instrument(linter, warn=lambda m: None):
        rules = [p for p in linter.pm.get_plugins() if isinstance(p, Rule)]
        with v1.Session(graph=graph) as sess:
            run = sess.run
            for i in range(1_000):
                run(y, {x: 1.0})
            before = {type(r).__name__: _state_size(r) for r in rules}
            for i in range(runs - 1_000):
                run(y, {x: 1.0})
            after = {type(r).__name__: _state_size(r) for r in rules}
    assert after == before
    assert linter.finish() == []
