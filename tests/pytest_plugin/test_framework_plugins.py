"""`pytest --graphlint` on suites of each framework: TF1 rule scopes per test (a finding of one
test is neither repeated nor counted in the next, one made during teardown is the test's), TF2
retracing per test and the fixture's limit, and JAX's retracing."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

from harness import HANG_GUARD, PYTEST_ENV


HAS_JAX = importlib.util.find_spec("jax") is not None


# -- TF1: a fresh set of rules per test ------------------------------------------------------------


TF1_HEADER = """\
import pytest
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.reset_default_graph()


def forecast(sess):
    inputs = tf1.placeholder(tf.float32, [None, 4])
    return sess.run(tf.reduce_sum(inputs), {inputs: [[1.0] * 4]})
"""


def test_a_finding_of_one_test_is_neither_repeated_nor_counted_in_the_next(pytester):
    pytester.makepyfile(
        test_a=TF1_HEADER
        + textwrap.dedent(
            """
            def test_twice():
                with tf1.Session() as sess:
                    forecast(sess)
                    forecast(sess)


            def test_three_times():
                with tf1.Session() as sess:
                    forecast(sess)
                    forecast(sess)
                    forecast(sess)


            def test_once():
                with tf1.Session() as sess:
                    forecast(sess)
            """
        )
    )
    result = pytester.runpytest_inprocess("--graphlint", "-p", "no:randomly")
    result.assert_outcomes(passed=3)
    out = result.stdout.str()
    assert out.count("test_a.py::test_twice: ") == 1 and out.count("test_a.py::test_three_times: ") == 1
    assert "test_a.py::test_once" not in out  # nothing carried over from the two before
    twice = next(line for line in out.splitlines() if "test_a.py::test_twice: " in line)
    three = next(line for line in out.splitlines() if "test_a.py::test_three_times: " in line)
    assert "2 times" in twice and "3 times" in three  # each test's count starts from zero


def test_a_finding_during_teardown_is_the_tests_and_a_fresh_scope_judges_it(pytester):
    pytester.makepyfile(
        test_b=TF1_HEADER
        + textwrap.dedent(
            """
            @pytest.fixture
            def rebuilds_on_teardown():
                yield
                with tf1.Session() as sess:
                    forecast(sess)
                    forecast(sess)


            def test_call_rebuilds_too(rebuilds_on_teardown):
                with tf1.Session() as sess:
                    forecast(sess)
                    forecast(sess)
                    forecast(sess)


            def test_after():
                pass
            """
        )
    )
    result = pytester.runpytest_inprocess("--graphlint", "--graphlint-fail-on=warning", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1, errors=1)
    out = result.stdout.str()
    assert "graphlint found 1 problem during teardown" in out
    lines = [line for line in out.splitlines() if line.startswith("  test_b.py::")]
    assert len(lines) == 2 and all(line.startswith("  test_b.py::test_call_rebuilds_too: ") for line in lines)
    assert sorted("3 times" in line for line in lines) == [False, True]  # the call's 3, the teardown's 2
    assert any("2 times" in line for line in lines)


# -- TF2 ------------------------------------------------------------------------------------------


PLUGIN_TESTS = """
import tensorflow as tf


@tf.function
def scale(x, factor):
    return x * factor


def test_retraces():
    for i in range(8):
        scale(tf.ones([2]), float(i))


def test_clean():
    for i in range(8):
        scale(tf.ones([2]), tf.constant(float(i)))


def test_fixture_limits_traces(graphlint):
    @tf.function
    def double(x):
        return 2 * x

    with graphlint.assert_max_traces(double, 2):
        for n in range(1, 5):
            double(tf.ones([n]))
"""


@pytest.mark.slow
def test_plugin_reports_gl501_per_test_and_the_fixture_limits_traces(pytester):
    pytester.makepyfile(test_tf2=PLUGIN_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--graphlint", "-W", "ignore::DeprecationWarning")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "test_tf2.py::test_retraces:" in out
    assert "`scale()` was traced 8 times" in out and "`factor` (float) 0.0 → 1.0 → 2.0 → 3.0 → …" in out
    assert "test_tf2.py::test_clean:" not in out
    assert "double was traced 4 times in the block (at most 2 expected)" in out


# -- JAX ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_pytest_graphlint_reports_a_jax_tests_retracing(tmp_path):
    if not HAS_JAX:
        pytest.skip("JAX is not installed")
    (tmp_path / "test_model.py").write_text(
        textwrap.dedent(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def norm(x):
                return jnp.sqrt(jnp.sum(x * x))

            def test_norms():
                for n in range(1, 8):
                    assert norm(jnp.ones((n,))) > 0

            def test_clean():
                assert norm(jnp.ones((3,))) > 0
            """
        )
    )
    env = {**os.environ, **PYTEST_ENV, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--graphlint",
         "--graphlint-report", str(tmp_path / "report.json")],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=HANG_GUARD,
    )
    report = json.loads((tmp_path / "report.json").read_text())
    found = [(f["code"], f["test"], f["line"]) for f in report["findings"]]
    assert found == [("GL501", "test_model.py::test_norms", 11)], proc.stdout[-3000:]
