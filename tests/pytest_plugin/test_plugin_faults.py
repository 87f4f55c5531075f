"""The pytest plugin under faults (issues 6 and 10): the program's own failures, exits,
threads, forks and a Ctrl-C stay the program's and the findings so far are still reported;
bad marker arguments, an unwritable report and a missing TensorFlow are one line each."""

from __future__ import annotations

import os
import re
import textwrap

import pytest


# -- the program's faults ---------------------------------------------------------------------------


GL103_HEADER = """\
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
with tf.Graph():  # GL103 at line 3
    pass
"""


PLUGIN_FAULTS = GL103_HEADER.replace("with tf.Graph():  # GL103 at line 3\n    pass\n", "") + """\
import os, sys, threading, multiprocessing
import pytest


def build_gl103():
    with tf.Graph():
        tf.constant(1.0)


def test_a_raises_after_a_finding():
    build_gl103()
    raise RuntimeError("program error")


def test_b_exits():
    build_gl103()
    sys.exit(3)


def test_c_thread_fails():
    def work():
        build_gl103()
        raise RuntimeError("thread error")
    t = threading.Thread(target=work)
    t.start()
    t.join()


def _child(i):
    build_gl103()
    return i


def test_d_forks():
    with multiprocessing.get_context("fork").Pool(2) as pool:
        assert pool.map(_child, range(3)) == [0, 1, 2]


def test_e_clean():
    assert True
"""

def _plugin_suite(pytester, **files):
    pytester.makepyfile(**{name: textwrap.dedent(src) for name, src in files.items()})
    return pytester

def test_pytest_plugin_survives_program_faults(pytester):
    _plugin_suite(
        pytester,
        test_program_faults=PLUGIN_FAULTS,  # (not test_faults: the name of a module of this suite)
        test_import_error="import tensorflow\nraise ImportError('module cannot load')\n",
    )
    result = pytester.runpytest_inprocess("--graphlint", "--continue-on-collection-errors", "-W", "ignore")
    outcomes = result.parseoutcomes()
    # the program's own failures stay the program's: a failure each, the collection error kept;
    # the thread's GL103 fails its test (an error finding), the forking test passes
    assert outcomes == {"failed": 3, "passed": 2, "errors": 1}, result.stdout.str()
    text = result.stdout.str()
    assert "FAILED test_program_faults.py::test_c_thread_fails - graphlint found 1 problem" in text
    assert "SystemExit: 3" in text
    assert "RuntimeError: program error" in text and "module cannot load" in text
    assert "INTERNALERROR" not in text and "GL000" not in text
    # findings of a failing test, of a test that exits and of a thread are still summarized
    for test in ("test_a_raises_after_a_finding", "test_b_exits", "test_c_thread_fails"):
        assert re.search(rf"test_program_faults.py::{test}: .*test_program_faults.py:\d+: `with tf.Graph\(\):`", text), test
    # forked workers inherit the probes but report nothing; the parent reports no GL103 there
    assert "test_d_forks: " not in text

def test_pytest_plugin_keyboard_interrupt_still_prints_findings_so_far(pytester):
    _plugin_suite(
        pytester,
        test_interrupt=PLUGIN_FAULTS.split("def test_a")[0]
        + "def test_a_finding():\n    build_gl103()\n\n\n"
        + "def test_b_interrupted():\n    raise KeyboardInterrupt\n\n\n"
        + "def test_c_never_runs():\n    pass\n",
    )
    result = pytester.runpytest_inprocess("--graphlint", no_reraise_ctrlc=True)
    text = result.stdout.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "KeyboardInterrupt" in text and "INTERNALERROR" not in text
    assert "test_interrupt.py::test_a_finding: " in text, text


# -- bad usage: one line ----------------------------------------------------------------------------


BAD_MARKERS = """\
import pytest


@pytest.mark.graphlint(rules={"GL302": 5})
def test_rules_not_a_table():
    pass


@pytest.mark.graphlint(rules=5)
def test_rules_not_a_mapping():
    pass


@pytest.mark.graphlint(fail_on=["error"])
def test_fail_on_a_list():
    pass


def test_fine():
    pass
"""

def test_bad_marker_arguments_fail_their_test_with_one_line(pytester):
    pytester.makepyfile(test_markers=BAD_MARKERS)
    result = pytester.runpytest_subprocess("--graphlint", "-p", "no:cacheprovider")
    text = result.stdout.str() + result.stderr.str()
    result.assert_outcomes(errors=1)  # one error collecting the module, naming each test
    assert "TypeError" not in text and "KeyError" not in text and "Traceback" not in text, text[-4000:]
    result.stdout.fnmatch_lines([
        "*test_rules_not_a_table*rules.GL302 must be a table*",
        "*test_rules_not_a_mapping*rules must be a table*",
        "*test_fail_on_a_list*fail_on must be error, warning or never*",
    ])

@pytest.mark.parametrize("target", ["missing/report.json", "adir", "/dev/full"])
def test_graphlint_report_that_cannot_be_written_is_a_usage_error_at_start(pytester, target):
    if target == "/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    (pytester.path / "adir").mkdir()
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess("--graphlint", f"--graphlint-report={target}", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-3000:]
    assert f"graphlint: cannot write --graphlint-report {target}" in result.stderr.str()
    assert "passed" not in result.stdout.str()  # stopped before running anything

def test_graphlint_fixture_without_tensorflow_is_one_line(pytester):
    pytester.makeconftest(
        "import sys\nsys.modules['tensorflow'] = None\nsys.modules['jax'] = None\nsys.modules['torch'] = None\n"
    )
    pytester.makepyfile(test_fx="def test_uses_it(graphlint):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    text = result.stdout.str()
    assert "TensorFlow is not installed" in text
    assert "Traceback" not in text and "instrument.py" not in text and "testing.py" not in text, text[-4000:]
