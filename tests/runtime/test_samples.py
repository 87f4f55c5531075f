"""Every sample under samples/ (rules, runtime, story, jax, torch): a bad program yields exactly the
findings its ``# GLnnn`` markers declare, its good twin yields nothing at all — run the way its
framework needs (tests/harness.py's ``sample_driver``, by its rule's declared frameworks: TF1 in this
process, TF2/Keras, JAX and PyTorch each in one subprocess)."""

from __future__ import annotations

import pytest

from harness import (
    SAMPLE_PATHS,
    SAMPLES,
    assert_exactly_markers,
    expected_markers,
    is_bad_sample,
    run_in_process,
    sample_driver,
    sample_needs,
)

#: Bad samples whose program itself fails (the findings must be there all the same).
FAILING = {"gl202_bad.py", "gl203_bad.py", "gl204_bad.py", "gl401_bad.py", "forecast_1_rebuilt.py", "forecast_2_reuse_fix.py"}


#: Samples whose program starts fresh Pythons that import TensorFlow (spawned workers): slow.
#: In the fast loop their rule's in-process twin and their static check cover them.
FRESH_PYTHONS = {
    "gl101_good_worker_processes.py": "spawns two workers, each a fresh Python importing TensorFlow; "
    "the same worker() in one process is gl101_bad_workers_in_process.py, in the fast loop",
}


def _id(path):
    return str(path.relative_to(SAMPLES))


def _param(path):
    reason = FRESH_PYTHONS.get(path.name)
    marks = [pytest.mark.slow(reason=reason)] if reason else []
    if sample_driver(path) != "tf1":
        marks.append(pytest.mark.sample_batch(sample_driver(path)))
    return pytest.param(path, id=_id(path), marks=marks)


def test_a_sample_is_bad_exactly_when_it_declares_markers():
    """So that a bad sample that lost its markers is not taken for a good one, nor the reverse."""
    wrong = [_id(p) for p in SAMPLE_PATHS if is_bad_sample(p) != bool(expected_markers(p))]
    assert wrong == []
    assert {sample_driver(p) for p in SAMPLE_PATHS} == {"tf1", "tf2", "jax", "torch"}


@pytest.mark.parametrize("path", map(_param, SAMPLE_PATHS))
def test_bad_sample_yields_exactly_its_markers_and_good_twin_nothing(path, sample_runs):
    missing = sample_needs(path)
    if missing:
        pytest.skip(f"{missing} is not installed")
    kind = sample_driver(path)
    if kind == "tf1":
        findings, outcome = run_in_process(path)
        status = outcome.status
    else:
        result = sample_runs(kind)[str(path)]
        findings, status = result["findings"], result["status"]
    if is_bad_sample(path):
        assert_exactly_markers(path, findings)
    else:
        assert "GL" not in path.read_text(), "a good sample must not mention rule codes"
        # also no TF1 finding (GL101, GL102, GL201...) for FuncGraphs and Keras fit/evaluate/predict
        assert findings == [], [(f.code, f.location.line, f.message) for f in findings]
    assert (status != 0) == (path.name in FAILING), status
    if kind in ("jax", "torch"):  # a JAX or PyTorch program's fix names no TensorFlow API
        assert not [f.fix for f in findings if "tf." in f.fix or "input_signature" in f.fix]
