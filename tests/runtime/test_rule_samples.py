"""The rule samples under samples/rules/ for GL101-GL103 and GL201-GL204: what each finding
says (that every bad sample yields exactly its markers and every good one nothing is
tests/runtime/test_samples.py). Every TF1 bad sample is also checked with both engines: what
``graphlint check`` reports, ``graphlint run`` reports too, or the difference is named with its
reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import SAMPLES, is_bad_sample, line_of, only, run_in_process, samples_of
from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.stacks import capture_lazy

RULES = SAMPLES / "rules"
RUNTIME = SAMPLES / "runtime"  # samples only the runtime judges right (see ENGINES_DIFFER)


#: graphlint's rules that find something in a program: a runtime or a static form (not GL000
#: and GL001, graphlint's own findings).
FINDING_RULES = [
    cls for cls in discover_rules(plugins=False).values()
    if cls.checks_statically() or any(attr.startswith("graphlint_") for attr in dir(cls))
]


@pytest.mark.parametrize("rule", FINDING_RULES, ids=lambda c: c.code)
def test_every_rule_has_a_bad_sample_and_its_good_twin(rule):
    """Found by the rule's code in samples/ (``gl101_bad.py`` and ``gl101_good.py``): no list of
    codes to keep; a rule of graphlint's own without its samples fails here."""
    found = samples_of(rule.code)
    assert any(is_bad_sample(p) for p in found), f"no samples/**/{rule.code.lower()}_bad*.py"
    assert any(not is_bad_sample(p) for p in found), f"no samples/**/{rule.code.lower()}_good*.py"


# -- GL101 graph-rebuilt ------------------------------------------------------------------------
def test_gl101_message_has_op_counts_and_both_calls():
    path = RULES / "gl101_bad.py"
    finding = only(run_in_process(path)[0], "GL101")
    assert "`forecast()`" in finding.message and "2 times" in finding.message
    counts = finding.message.rsplit(":", 1)[1].split("→")
    assert len(counts) == 2
    first, second = (int(c) for c in counts)
    assert 0 < first < second
    calls = [r.location.line for r in finding.related]
    assert calls == [
        line_of(path, "model.forecast(sess, batch)"),
        line_of(path, "model.forecast(sess, 2 * batch)"),
    ]




def test_gl101_with_graph_without_as_default():
    path = RULES / "gl101_bad_with_graph.py"
    findings, outcome = run_in_process(path)
    assert outcome.status == 0
    assert {f.code for f in findings} == {"GL101", "GL103"}


# -- GL102 op-in-run-loop -----------------------------------------------------------------------
def test_gl102_counts_steps_and_respects_min_repeats():
    path = RULES / "gl102_bad.py"
    finding = only(run_in_process(path)[0], "GL102")
    assert "over 5 steps" in finding.message
    config = Config(rule_options={"GL102": {"min-repeats": 6}})
    findings, _ = run_in_process(path, config=config)
    assert findings == []


# -- GL201 variable-renamed ---------------------------------------------------------------------
def test_gl201_names_the_renamed_variable_and_both_calls():
    path = RULES / "gl201_bad.py"
    findings, _ = run_in_process(path)
    by_name = {f.message.split("'")[1]: f for f in findings}
    assert set(by_name) == {"weights", "bias"}
    finding = by_name["weights"]
    assert "'weights_1'" in finding.message
    assert [r.location.line for r in finding.related] == [
        line_of(path, "hidden = tf.nn.relu(dense("),
        line_of(path, "output = dense("),
    ]
    assert "'weights_1'" in finding.related[1].message


# -- GL202 variable-exists ----------------------------------------------------------------------
def test_gl202_names_the_first_creation():
    path = RULES / "gl202_bad.py"
    findings, outcome = run_in_process(path)
    assert outcome.status != 0  # the ValueError ends the program
    finding = only(findings, "GL202")
    assert "'encoder/kernel'" in finding.message
    assert [r.location.line for r in finding.related] == [
        line_of(path, 'tf1.get_variable("kernel", [4, 3])')
    ]


def test_gl202_reported_when_the_error_is_swallowed():
    path = RULES / "gl202_bad_swallowed.py"
    findings, outcome = run_in_process(path)
    assert outcome.status == 0  # the program caught the ValueError and went on
    finding = only(findings, "GL202")
    assert "'embedding/table'" in finding.message


# -- GL203 reuse-missing-variable ---------------------------------------------------------------
def test_gl203_suggests_the_close_name():
    path = RULES / "gl203_bad.py"
    finding = only(run_in_process(path)[0], "GL203")
    assert "'clasifier/logits/kernel'" in finding.message
    assert len(finding.related) == 1
    assert "'classifier/logits/kernel'" in finding.related[0].message


# -- GL204 variable-not-initialized -------------------------------------------------------------
def test_gl204_lists_the_optimizer_slots_and_the_initializer():
    path = RULES / "gl204_bad.py"
    finding = only(run_in_process(path)[0], "GL204")
    assert "'w/Momentum'" in finding.message
    assert [r.location.line for r in finding.related] == [
        line_of(path, "init = tf1.global_variables_initializer()")
    ]


# -- call identity ------------------------------------------------------------------------------
def _invocation():
    return capture_lazy(0).call  # this function's own call: one line, one instruction


def test_each_call_gets_its_own_identity_when_python_reuses_the_frame_memory():
    calls = [_invocation() for _ in range(200)]  # each frame dies before the next is made
    assert len(set(calls)) == 200


def test_one_call_keeps_its_identity_through_a_loop():
    def body():
        return [capture_lazy(0).call for _ in range(3)]

    first, second = body(), body()
    assert len(set(first)) == 1 and len(set(second)) == 1 and first != second


def test_gl101_counts_every_call_of_a_one_line_per_call_method():
    path = RUNTIME / "gl101_bad_per_call.py"
    finding = only(run_in_process(path)[0], "GL101")
    assert "`predict()`" in finding.message and "4 times" in finding.message
    sizes = [int(n) for n in finding.message.rsplit(":", 1)[1].split("→")]
    assert sizes == sorted(sizes) and len(set(sizes)) == 4
    assert [r.location.line for r in finding.related] == [line_of(path, "scorer.predict(")]


# -- both engines over every sample ---------------------------------------------------------------
BOTH_ENGINES = {"GL101", "GL102", "GL103", "GL202", "GL301", "GL502", "GL503"}
STORY = SAMPLES / "story"
CROSS = (
    sorted(p for p in RULES.glob("gl[1234]*_bad*.py"))
    + sorted(STORY.glob("*.py"))
    + sorted(RUNTIME.glob("*.py"))
)
# (sample, code): why `graphlint check` reports the code and `graphlint run` does not.
ENGINES_DIFFER = {
    ("forecast_1_rebuilt.py", "GL301"): "the program dies in forecast()'s second call, after two "
    "sessions; the runtime reports more than max-per-site=2, the static engine a Session in a "
    "per-call method",
    ("forecast_2_reuse_fix.py", "GL301"): "the program opens two sessions at forecast()'s line; "
    "the runtime reports more than max-per-site=2, the static engine a Session in a per-call method",
    ("gl102_good_config_loop.py", "GL102"): "the static engine sees ops built in a loop that runs "
    "a session; the runtime sees each step read other tensors: cases looped over, not one op rebuilt",
    ("gl101_good_check_helper.py", "GL102"): "the static engine sees a function that builds ops "
    "called in a loop; the runtime sees each call read only the values it was given (cases, not "
    "one model applied again)",
    ("gl101_bad_per_call.py", "GL102"): "the runtime sees predict() build and run per call (GL101, "
    "one cause, one finding); the static engine reports the op-building line of a per-call method",
}


def _static_codes(path: Path) -> set[str]:
    from click.testing import CliRunner

    from graphlint.cli import main

    result = CliRunner().invoke(main, ["check", "--format", "json", "--exit-zero", str(path)], catch_exceptions=False)
    return {f["code"] for f in json.loads(result.stdout)["findings"]}


@pytest.mark.parametrize("path", CROSS, ids=lambda p: p.name)
def test_codes_graphlint_check_reports_are_reported_by_graphlint_run(path):
    static = _static_codes(path) & BOTH_ENGINES
    runtime = {f.code for f in run_in_process(path)[0]} & BOTH_ENGINES
    differ = {code for (name, code) in ENGINES_DIFFER if name == path.name}
    assert static - runtime == differ, (sorted(static), sorted(runtime), sorted(differ))
