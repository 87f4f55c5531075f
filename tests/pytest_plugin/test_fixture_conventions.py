"""The pytest fixture and markers as pytest users expect them: an expected finding does not
also fail the test, `graphlint.findings` without --graphlint, a marker typo caught at
collection either way, and a warning made an error pointing at the test's line."""

from __future__ import annotations

import textwrap

import pytest

import tensorflow  # noqa: F401  (in-process pytester runs cannot import TensorFlow twice)

HEADER = """\
import pytest
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.reset_default_graph()
"""


@pytest.fixture
def suite(pytester):
    def write(source: str):
        pytester.makepyfile(test_s=HEADER + textwrap.dedent(source))
        return pytester

    return write


@pytest.mark.parametrize("args", [(), ("--graphlint",)])
def test_expect_findings_does_not_also_fail_the_test(suite, args):
    pytester = suite("""
        def build_bad():
            with tf.Graph():
                tf.constant(1.0)


        def test_expected(graphlint):
            with graphlint.expect_findings("GL103"):
                build_bad()


        def test_unexpected_still_fails(graphlint):
            with graphlint.expect_findings("GL103"):
                build_bad()
            build_bad()  # another line would be another finding; this one is the same site
            with tf.Graph():
                pass
    """)
    result = pytester.runpytest_inprocess(*args)
    if args:
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines(["*test_unexpected_still_fails*", "graphlint found 1 problem:", "test_s.py:22:5: GL103*"])
    else:
        result.assert_outcomes(passed=2)


@pytest.mark.parametrize("args", [(), ("--graphlint",)])
def test_findings_work_with_and_without_the_option(suite, args):
    pytester = suite("""
        def test_sees_it(graphlint):
            with tf.Graph():
                pass
            assert [f.code for f in graphlint.findings] == ["GL103"]
    """)
    result = pytester.runpytest_inprocess(*args, "--graphlint-fail-on=never")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("args", [(), ("--graphlint",)])
@pytest.mark.parametrize("marker, message", [
    ("max_trace=3", "unknown graphlint marker argument 'max_trace'"),
    ("max_traces='many'", "must be int"),
    ("select=['XY9']", "unknown rule code or prefix 'XY9'"),
    ("fail_on='sometimes'", "fail_on must be error, warning or never"),
])
def test_a_marker_typo_is_a_collection_error_with_or_without_the_option(suite, args, marker, message):
    pytester = suite(f"""
        @pytest.mark.graphlint({marker})
        def test_typo():
            pass


        def test_other():
            pass
    """)
    result = pytester.runpytest_inprocess(*args)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ERROR collecting test_s.py*", f"*test_s.py::test_typo: *{message}*"])
    assert "Traceback" not in result.stdout.str()
