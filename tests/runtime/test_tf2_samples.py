"""TF2 rules (GL501-GL504) on their samples and the tf.function/Keras probes (under pytest:
tests/pytest_plugin/test_framework_plugins.py).

TF1 samples turn eager execution off for the whole process, so the TF2 samples run in ONE
separate eager process (the ``sample_runs`` fixture, ``tests/sample_driver.py``) and the tests
read its JSON; that every sample yields exactly its markers is tests/runtime/test_samples.py.
"""

from __future__ import annotations

import gc
import json

import pytest

from harness import SAMPLES, only

pytestmark = pytest.mark.sample_batch("tf2")  # its `runs` are sample_runs("tf2")

RULES = SAMPLES / "rules"
CODES = ("gl501", "gl502", "gl503", "gl504")
BAD = sorted(p for code in CODES for p in RULES.glob(f"{code}_bad*.py"))
GOOD = sorted(p for code in CODES for p in RULES.glob(f"{code}_good*.py"))


@pytest.fixture
def runs(sample_runs):
    """Every TF2 sample run under graphlint, in one eager subprocess: path -> result."""
    return sample_runs("tf2")


def _run(runs, name):
    return runs[str(RULES / name)]


def test_every_tf2_code_has_both_samples():
    for code in CODES:
        assert (RULES / f"{code}_bad.py").is_file(), code
        assert (RULES / f"{code}_good.py").is_file(), code


def test_every_tf2_sample_prints_what_is_compared_with_python(runs):
    """Each prints something, so that tests/runtime/test_samples_unchanged.py (every sample
    plainly and as `graphlint run`'s child runs it: stdout, status, traceback) compares
    something; gl501_good.py prints its functions' trace counts, unchanged by graphlint."""
    assert _run(runs, "gl501_good.py")["stdout"].splitlines()[-1] == "traces: 1 3"
    for path in map(str, BAD + GOOD):
        assert runs[path]["stdout"].strip(), f"{path} prints nothing to compare"


# -- GL501 function-retraced --------------------------------------------------------------------
def test_gl501_names_the_python_argument_its_values_and_the_definition(runs):
    finding = only(_run(runs, "gl501_bad.py")["findings"], "GL501")
    assert "`train_step()` was traced 8 times" in finding.message
    assert "`lr` (float) 0.1 → 0.05 → 0.03333… → 0.025 → …" in finding.message
    assert "`x`" not in finding.message and "`y`" not in finding.message  # unchanged arguments
    assert "`lr` as a tensor" in finding.fix
    source = (RULES / "gl501_bad.py").read_text().splitlines()
    assert [source[r.location.line - 1] for r in finding.related] == ["@tf.function"]


def test_gl501_names_the_changing_shape_and_the_input_signature_to_use(runs):
    finding = only(_run(runs, "gl501_bad_shapes.py")["findings"], "GL501")
    assert "`x` shape (1, 4) → (2, 4) → (3, 4) → (4, 4) → … (8 distinct)" in finding.message
    assert "input_signature=[tf.TensorSpec([None, 4], tf.float32)]" in finding.fix
    assert "reduce_retracing=True" in finding.fix


# -- GL502 / GL503 / GL504 ----------------------------------------------------------------------
def test_gl502_counts_the_functions_made_at_the_line(runs):
    finding = only(_run(runs, "gl502_bad.py")["findings"], "GL502")
    assert "made 3 new functions" in finding.message
    assert [r.location.line for r in finding.related] == [13]  # def model


def test_gl503_counts_the_models_built_without_clear_session(runs):
    finding = only(_run(runs, "gl503_bad.py")["findings"], "GL503")
    assert finding.message.startswith("3 Keras models (`Sequential`)")


def test_gl503_and_gl504_watch_tf_keras_models_too(runs):
    churn = only(_run(runs, "gl503_bad_tf_keras.py")["findings"], "GL503")
    assert churn.message.startswith("4 Keras models (`Sequential`)")
    predict = only(_run(runs, "gl504_bad_tf_keras.py")["findings"], "GL504")
    assert "8 times" in predict.message


def test_functions_tf_data_makes_itself_are_not_the_users(runs):
    assert _run(runs, "gl502_good_dataset_map.py")["findings"] == []


# (sample, code): why `graphlint check` reports the code and `graphlint run` does not.
ENGINES_DIFFER: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_codes_graphlint_check_reports_are_reported_by_graphlint_run(runs, path):
    from click.testing import CliRunner

    from graphlint.cli import main

    result = CliRunner().invoke(main, ["check", "--format", "json", "--exit-zero", str(path)], catch_exceptions=False)
    both = {"GL101", "GL102", "GL103", "GL202", "GL301", "GL502", "GL503"}
    static = {f["code"] for f in json.loads(result.stdout)["findings"]} & both
    runtime = {f.code for f in runs[str(path)]["findings"]} & both
    differ = {code for (name, code) in ENGINES_DIFFER if name == path.name}
    assert static - runtime == differ, (sorted(static), sorted(runtime), sorted(differ))


def test_gl504_counts_the_small_predict_calls(runs):
    finding = only(_run(runs, "gl504_bad.py")["findings"], "GL504")
    assert "8 times" in finding.message and "at most 1 row each" in finding.message
    assert "model(x, training=False)" in finding.fix


# -- the rule on plain events (no TensorFlow needed) --------------------------------------------
class _ListSink:
    def __init__(self):
        self.findings = []

    def add(self, finding):
        self.findings.append(finding)


def _trace_events(rule, values, name="lr"):
    from graphlint.events import summarize
    from graphlint.stacks import Frame

    site = Frame("/prog.py", 10, "<module>")
    for i, value in enumerate(values, 1):
        rule.graphlint_function_traced(1, "step", Frame("/prog.py", 3, "step"), site, (summarize(name, value),), False, False, None)


@pytest.mark.parametrize("traces, options, fires", [(5, {}, False), (6, {}, True), (6, {"max-traces": 6}, False)])
def test_gl501_threshold_is_max_traces(traces, options, fires):
    from graphlint.rules.function_retraced import FunctionRetraced

    sink = _ListSink()
    rule = FunctionRetraced.runtime_form()(sink, options)
    _trace_events(rule, [0.1 * i for i in range(traces)])
    rule.graphlint_run_finished()
    assert bool(sink.findings) is fires


def test_gl501_new_object_each_call_is_named_with_its_class():
    from graphlint.rules.function_retraced import FunctionRetraced

    class Config:
        pass

    sink = _ListSink()
    rule = FunctionRetraced.runtime_form()(sink)
    keep = [Config() for _ in range(6)]
    _trace_events(rule, keep, name="config")
    rule.graphlint_run_finished()
    (finding,) = sink.findings
    assert "`config` is a new `Config` object at each trace (6 objects)" in finding.message
    assert "pass the same object" in finding.fix


def test_gl501_lists_only_the_arguments_that_changed_an_eager_and_a_graph_tensor_alike():
    import tensorflow as tf

    from graphlint.events import summarize
    from graphlint.rules.function_retraced import FunctionRetraced
    from graphlint.stacks import Frame

    eager = tf.ones((2, 5, 3))
    with tf.Graph().as_default():
        symbolic = tf.compat.v1.placeholder(tf.float32, (2, 5, 3))
    sink = _ListSink()
    rule = FunctionRetraced.runtime_form()(sink)
    site = Frame("/prog.py", 10, "<module>")
    for i in range(6):
        arguments = (summarize("inputs", eager if i % 2 else symbolic), summarize("is_training", i // 2))
        rule.graphlint_function_traced(1, "call", Frame("/prog.py", 3, "call"), site, arguments, False, False, None)
    rule.graphlint_run_finished()
    (finding,) = sink.findings
    assert "`is_training` (int) 0 → 1 → 2" in finding.message
    assert "`inputs`" not in finding.message


@pytest.mark.parametrize("values, fires", [([True, False] * 4, False), ([None, 1.5] * 4, False), ([0, 1, 2] * 3, True)])
def test_gl501_two_valued_flags_in_combination_are_bounded_on_purpose(values, fires):
    from graphlint.rules.function_retraced import FunctionRetraced

    sink = _ListSink()
    rule = FunctionRetraced.runtime_form()(sink)
    _trace_events(rule, values, name="flag")
    rule.graphlint_run_finished()
    assert bool(sink.findings) is fires


def test_gl501_definition_site_follows_wrapped():
    import functools

    from graphlint.probes._functions import definition

    def step(x):
        return x

    @functools.wraps(step)
    def wrapper(*args):
        return step(*args)

    assert definition(wrapper).line == step.__code__.co_firstlineno


def test_argument_summaries_are_plain_data():
    import numpy as np
    import tensorflow as tf

    from graphlint.events import summarize

    assert summarize("x", np.ones((3, 4), np.float32))[1:5] == ("tensor", "ndarray", (3, 4), "float32")
    assert summarize("s", tf.TensorSpec([None, 4], tf.int32))[3:5] == ((None, 4), "int32")
    assert summarize("n", 3).value == "3" and "…" in summarize("t", "x" * 100).value  # shortened
    assert summarize("l", [1, 2.5]).describe() == "list [2: int 1, float 2.5]"
    obj = object()
    arg = summarize("o", obj)
    assert arg.kind == "object" and arg.identity == id(obj)
    assert all(isinstance(v, (str, int, tuple, type(None))) for v in arg)


# -- the probe ---------------------------------------------------------------------------------
def test_function_probe_restores_every_patched_attribute_identically():
    import keras
    from keras.src.backend.tensorflow.trainer import TensorFlowTrainer
    from keras.src.models import model
    from tensorflow.python.eager.polymorphic_function import polymorphic_function as pf
    from tensorflow.python.eager.polymorphic_function import tracing_compilation as tc

    from graphlint.probes.tf_function import FunctionProbe

    owners = [(pf.Function, "__init__"), (tc, "_create_concrete_function"), (model.Model, "__init__"), (TensorFlowTrainer, "predict")]
    before = [vars(owner)[attr] for owner, attr in owners]
    probe = FunctionProbe(hook=None, warn=pytest.fail)
    probe.install()
    try:
        assert probe.unavailable == []
        assert all(vars(owner)[attr] is not old for (owner, attr), old in zip(owners, before))
    finally:
        probe.uninstall()
    assert all(vars(owner)[attr] is old for (owner, attr), old in zip(owners, before))
    assert keras.Model.__init__ is before[2]


def test_function_probe_keeps_no_strong_reference_to_functions():
    import tensorflow as tf

    from graphlint._hookspecs import hookimpl
    from graphlint.linter import Linter
    from graphlint.instrument import instrument

    events = []

    class Recorder:
        @hookimpl
        def graphlint_function_created(self, function_id, by_user):
            events.append(("created", function_id, by_user))

        @hookimpl
        def graphlint_function_released(self, function_id):
            events.append(("released", function_id))

    from tensorflow.python.eager import context

    # Eager as a TF2 program is, even when a TF1 test in this process turned eager execution off
    # (a tf.function made while building a graph is TensorFlow's, not the user's).
    with instrument(Linter()) as linter, context.eager_mode():
        linter.pm.register(Recorder())
        fn = tf.function(lambda x: x + 1)
        del fn
        gc.collect()
    (_, fid, by_user), released = events
    assert by_user is True
    assert released == ("released", fid)
