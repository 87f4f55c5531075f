"""The probes themselves, in-process with real TensorFlow: exact restore of every patched
attribute, no leaks of graphs or per-graph state, unchanged program results, a probe that cannot
install, nested instrumentation."""

from __future__ import annotations

import gc
import sys
import weakref

import numpy as np
import pytest

import tensorflow as tf  # noqa: E402  (a test dependency: if missing, this module fails loudly instead of skipping)
v1 = tf.compat.v1

from graphlint.linter import Linter  # noqa: E402
from graphlint.instrument import instrument  # noqa: E402
from graphlint.probes import tf_graph  # noqa: E402
from graphlint.rules._state import PerGraph  # noqa: E402

_MISSING = object()


def _patch_points():
    """(owner, attribute) for every entry point the probes patch."""
    from tensorflow.python.client import session as session_lib
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import variable_scope, variable_v1, variables
    from tensorflow.python.training import saver as saver_lib

    points = [
        (ops.Graph, "_create_op_internal"),
        (ops.Graph, "_create_op_from_tf_operation"),
        (ops.Graph, "__enter__"),
        (variable_v1, "default_variable_creator"),
        (variables, "default_variable_creator_v2"),
        (variable_scope._VariableStore, "_get_single_variable"),
        (variables, "variables_initializer"),
        (session_lib.BaseSession, "__init__"),
        (session_lib.BaseSession, "run"),
        (session_lib.BaseSession, "close"),
        (saver_lib.Saver, "restore"),
    ]
    for module in (tf.compat.v1, getattr(tf.compat.v1, "initializers", None)):
        if module is None:
            continue
        for attr in ("variables_initializer", "variables"):
            if getattr(module, attr, None) is variables.variables_initializer:
                points.append((module, attr))
    return points


def _snapshot(points):
    return {
        (id(owner), attr): (vars(owner).get(attr, _MISSING), getattr(owner, attr, _MISSING))
        for owner, attr in points
    }


def _assert_identical(before, points):
    after = _snapshot(points)
    for (owner, attr) in points:
        own_before, seen_before = before[(id(owner), attr)]
        own_after, seen_after = after[(id(owner), attr)]
        name = f"{getattr(owner, '__name__', owner)}.{attr}"
        assert own_after is own_before, f"{name}: own attribute not restored"
        assert seen_after is seen_before, f"{name}: looked-up attribute not restored"


def _quiet_linter(messages=None):
    warn = (messages.append if messages is not None else (lambda msg: None))
    return Linter(warn=warn), warn


# -- (a) exact restore ------------------------------------------------------------------------
def test_patch_points_are_every_attribute_the_graph_probe_patches():
    """The restore tests below check :func:`_patch_points`: it must name every attribute the
    probe really patches (a new patch not listed here would go unchecked), aliases included."""
    probe = tf_graph.GraphProbe(Linter(warn=lambda m: None).hook, warn=lambda m: None)
    probe.install()
    try:
        patched = {(id(owner), attr) for owner, attr in probe.patcher.patched}
    finally:
        probe.uninstall()
    listed = {(id(owner), attr) for owner, attr in _patch_points()}
    assert patched and patched <= listed, patched - listed
    names = {attr for _, attr in _patch_points()}
    assert "variables_initializer" in names
    # tf.compat.v1.variables_initializer is one of the aliases the probe rebinds
    assert any(owner is tf.compat.v1 for owner, _ in _patch_points())


def test_every_patch_is_undone_on_normal_exit():
    points = _patch_points()
    before = _snapshot(points)
    linter, warn = _quiet_linter()
    with instrument(linter, warn=warn):
        during = _snapshot(points)
        changed = [attr for owner, attr in points if during[(id(owner), attr)][1] is not before[(id(owner), attr)][1]]
        assert len(changed) == len(points), "every patch point is patched while instrumented"
        with tf.Graph().as_default():
            tf.constant(1.0) + 1.0
    _assert_identical(before, points)


def test_every_patch_is_undone_when_the_block_raises():
    points = _patch_points()
    before = _snapshot(points)
    linter, warn = _quiet_linter()
    with pytest.raises(ZeroDivisionError):
        with instrument(linter, warn=warn):
            with tf.Graph().as_default():
                tf.constant(1.0) * 2.0
            1 / 0
    _assert_identical(before, points)
    # and instrumentation can start again afterwards
    with instrument(_quiet_linter()[0], warn=warn):
        pass
    _assert_identical(before, points)


def test_public_instrument_is_callable_whatever_was_imported_first():
    import graphlint.instrument  # binds the package attribute to the submodule

    linter, warn = _quiet_linter()
    with graphlint.instrument(linter, warn=warn) as got:
        assert got is linter


# -- (b) no leaks -----------------------------------------------------------------------------
def _per_graph_state(linter):
    """Every PerGraph a rule keeps, with the graph ids it holds."""
    held = {}
    rules = linter.main.rules
    assert rules
    for rule in rules:
        for attr, value in vars(rule).items():
            if isinstance(value, PerGraph):
                held[f"{rule.code}.{attr}"] = [gid for gid, _ in value.items()]
    return held


@pytest.mark.parametrize("n", [20, pytest.param(200, marks=pytest.mark.slow(
    reason="the same test with 20 graphs is in the fast loop (each graph is checked)"))])
def test_building_and_dropping_many_graphs_leaks_nothing(graph_probes, n):
    linter, warn = _quiet_linter()
    refs = []
    with instrument(linter, warn=warn):
        (probe,) = graph_probes
        for i in range(n):  # each graph is checked: a leak shows in the first as in the thousandth
            graph = tf.Graph()
            with graph.as_default():
                x = v1.placeholder(tf.float32, [2], name="x")
                w = v1.Variable(tf.ones([2]), name="w")
                y = x * w + 1.0
                init = v1.global_variables_initializer()
            sess = v1.Session(graph=graph)
            sess.run(init)
            sess.run(y, {x: np.array([i, 1.0], np.float32)})
            sess.close()
            refs.append((weakref.ref(graph), weakref.ref(sess)))
            del graph, sess, x, w, y, init
        gc.collect()
        alive = [n for n, (g, s) in enumerate(refs) if g() is not None or s() is not None]
        assert alive == [], f"{len(alive)} graphs/sessions still alive, e.g. #{alive[:5]}"
        assert probe._graphs == {}, "the probe still holds graph records"
        assert probe._sessions == {}, "the probe still holds session records"
        leftover = {name: ids for name, ids in _per_graph_state(linter).items() if ids}
        assert leftover == {}, f"rules still hold per-graph state: {leftover}"
    findings = linter.finish()
    assert [f for f in findings if f.code == "GL000"] == []


# -- (c) same results -------------------------------------------------------------------------
def _train(steps: int = 40):
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(7)
        rng = np.random.RandomState(0)
        xs = rng.randn(32, 4).astype(np.float32)
        ys = (xs @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)).astype(np.float32)
        x = v1.placeholder(tf.float32, [None, 4])
        y = v1.placeholder(tf.float32, [None, 1])
        w = v1.get_variable("w", [4, 1], initializer=v1.random_normal_initializer(seed=1))
        b = v1.Variable(tf.zeros([1]), name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train = v1.train.GradientDescentOptimizer(0.05).minimize(loss)
        init = v1.global_variables_initializer()
        with v1.Session(graph=graph) as sess:
            sess.run(init)
            for _ in range(steps):
                sess.run(train, {x: xs, y: ys})
            final, weights = sess.run([loss, w], {x: xs, y: ys})
    return final, weights


def test_instrumented_program_computes_the_same_values():
    plain_loss, plain_w = _train()
    linter, warn = _quiet_linter()
    with instrument(linter, warn=warn):
        inst_loss, inst_w = _train()
    again_loss, _ = _train()
    assert inst_loss == plain_loss == again_loss
    assert np.array_equal(inst_w, plain_w)
    assert [f for f in linter.finish() if f.code == "GL000"] == []


# -- (d) a probe that cannot install ----------------------------------------------------------
def _graph_not_default_found(linter) -> bool:
    return any(f.code == "GL103" for f in linter.finish())


def test_missing_tf_internal_gives_one_warning_and_other_rules_work(monkeypatch):
    from tensorflow.python.training import saver as saver_lib

    monkeypatch.delattr(saver_lib.Saver, "restore")
    points = [p for p in _patch_points() if p != (saver_lib.Saver, "restore")]
    before = _snapshot(points)
    messages: list[str] = []
    linter, warn = _quiet_linter(messages)
    with instrument(linter, warn=warn):
        with tf.Graph():  # GL103: the graph probe still works
            pass
    assert len(messages) == 1, messages
    assert "\n" not in messages[0]
    assert "checkpoint restore" in messages[0]
    assert _graph_not_default_found(linter)
    assert "restore" not in vars(saver_lib.Saver), "an absent attribute stays absent"
    _assert_identical(before, points)


def test_failing_patch_step_gives_one_warning_and_other_rules_work(monkeypatch):
    def broken(self):
        raise RuntimeError("simulated TensorFlow change")

    monkeypatch.setattr(tf_graph.GraphProbe, "_patch_sessions", broken)
    points = _patch_points()
    before = _snapshot(points)
    messages: list[str] = []
    linter, warn = _quiet_linter(messages)
    with instrument(linter, warn=warn):
        with tf.Graph():
            pass
    assert len(messages) == 1 and "\n" not in messages[0], messages
    assert "sessions" in messages[0] and "simulated TensorFlow change" in messages[0]
    assert _graph_not_default_found(linter)
    _assert_identical(before, points)


# -- (e) nesting ------------------------------------------------------------------------------
def test_nested_instrument_patches_nothing_twice_and_restores_everything():
    points = _patch_points()
    before = _snapshot(points)
    linter, warn = _quiet_linter()
    with instrument(linter, warn=warn):
        patched = _snapshot(points)
        inner = _quiet_linter()[0]
        with instrument(inner, warn=warn):
            assert _snapshot(points) == patched  # the outer block's probes serve both
            with tf.Graph():
                pass
        assert _graph_not_default_found(inner)
    assert _graph_not_default_found(linter)
    _assert_identical(before, points)
    with instrument(_quiet_linter()[0], warn=warn):  # the lock was released
        pass


# -- (e) a probe's own failure is said once, never swallowed ------------------------------------
def test_a_failing_session_probe_warns_once_and_the_program_goes_on(monkeypatch):
    messages = []

    def broken(self, *args, **kwargs):
        raise RuntimeError("probe bug")

    monkeypatch.setattr(tf_graph.GraphProbe, "_session_created", broken)
    linter = Linter(warn=messages.append)
    with instrument(linter, warn=messages.append):
        graph = tf.Graph()
        with graph.as_default():
            c = tf.constant(1.0)
        for _ in range(3):
            with tf.compat.v1.Session(graph=graph) as sess:
                assert sess.run(c) == 1.0
    said = [m for m in messages if "probe bug" in m]
    assert len(said) == 1, messages
    assert said[0].startswith("graphlint: internal error in the") and "RuntimeError" in said[0]


def test_a_failing_function_probe_warns_once_and_the_program_goes_on(monkeypatch):
    from graphlint.probes import tf_function

    messages = []

    def broken(self, *args, **kwargs):
        raise RuntimeError("trace probe bug")

    monkeypatch.setattr(tf_function.FunctionProbe, "_traced", broken)
    linter = Linter(warn=messages.append)
    with instrument(linter, warn=messages.append):
        with tf.Graph().as_default():  # traced in graph mode as well as eagerly: the same wrapper
            pass

        @tf.function
        def double(x):
            return x * 2

        for shape in ([1.0], [1.0, 2.0], [1.0, 2.0, 3.0]):
            double(tf.constant(shape))
    said = [m for m in messages if "trace probe bug" in m]
    assert len(said) == 1, messages


# -- (f) one type per id, whichever probe made it ------------------------------------------------
def test_function_ids_are_distinct_ints_across_tensorflow_and_jax():
    jax = pytest.importorskip("jax")
    from graphlint._hookspecs import hookimpl
    from graphlint.testing import recording

    class Created:
        def __init__(self):
            self.seen = []

        @hookimpl
        def graphlint_function_created(self, function_id, framework):
            self.seen.append((framework, function_id))

    linter, warn = _quiet_linter()
    with instrument(linter, warn=warn), recording(linter, Created()) as created:
        tf.function(lambda x: x + 1)(tf.constant(1.0))
        jax.jit(lambda x: x + 1)(1.0)
        tf.function(lambda x: x * 2)(tf.constant(1.0))
    frameworks = [framework for framework, _ in created.seen]
    ids = [function_id for _, function_id in created.seen]
    assert frameworks == ["tensorflow", "jax", "tensorflow"]
    assert all(type(i) is int for i in ids) and len(set(ids)) == 3


def test_op_added_gets_every_argument_of_its_spec_in_place():
    """The graph probe hands op_added its values in the spec's order (no dictionary per op)."""
    from graphlint._hookspecs import hookimpl
    from graphlint.testing import recording

    class Everything:
        def __init__(self):
            self.seen = []

        @hookimpl
        def graphlint_op_added(self, graph, graph_id, graph_kind, op, inputs, index, stack, site):
            self.seen.append((graph, graph_id, graph_kind, op, inputs, index, stack.site, site))

    linter, warn = _quiet_linter()
    with instrument(linter, warn=warn), recording(linter, Everything()) as everything:
        graph = tf.Graph()
        with graph.as_default():
            x = v1.placeholder(tf.float32, [2], name="x")
            y = tf.identity(x, name="y")
            line = sys._getframe(0).f_lineno - 1
    got, seen_graph, seen_id = everything.seen[-1], everything.seen[0][0], everything.seen[0][1]
    assert got[0] is graph is seen_graph and got[1] == seen_id and type(seen_id) is int
    assert got[2] == "graph" and got[3] is y.op and [t is x for t in got[4]] == [True] and got[5] == graph.version
    assert got[6] == got[7] and (got[7].line, got[7].function) == (line, "test_op_added_gets_every_argument_of_its_spec_in_place")
