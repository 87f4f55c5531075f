"""PyTorch samples (samples/torch/): what each finding says — the frame, the argument or attribute
and its values or shapes, dynamo's failed guard, the calling line, the fix — on a real run.

The samples run in ONE subprocess (``sample_runs("torch")``, ``tests/sample_driver.py torch``)
that never imports TensorFlow; that every bad sample yields exactly its markers and every good
twin nothing is tests/runtime/test_samples.py. Backends are ``eager``/``aot_eager``, and inductor for
the GL502 pair.
"""

from __future__ import annotations

import importlib.util

import pytest

from harness import SAMPLES, line_of, only
from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file

pytestmark = pytest.mark.sample_batch("torch")  # its `runs` are sample_runs("torch")

TORCH = SAMPLES / "torch"
HAS_TORCH = importlib.util.find_spec("torch") is not None


@pytest.fixture
def runs(sample_runs):
    if not HAS_TORCH:
        pytest.skip("PyTorch is not installed (pip install -e '.[torch]')")
    return sample_runs("torch")


def _run(runs, name):
    return runs[str(TORCH / name)]


def test_each_torch_finding_has_a_bad_and_a_good_sample():
    for stem in ("gl501_torch_bad_step", "gl501_torch_bad_shape", "gl501_torch_bad_scalar", "gl501_torch_bad_slice",
                 "gl502_torch_bad", "gl502_torch_bad_jit", "gl506_torch_bad", "gl506_torch_bad_branch"):
        assert (TORCH / f"{stem}.py").is_file(), stem
        assert (TORCH / f"{stem.replace('_bad', '_good')}.py").is_file(), stem


def test_torch_programs_run_without_tensorflow_being_imported(runs):
    assert not any(result["tensorflow_imported"] for result in runs.values())


def test_step_counter_reaching_the_recompile_limit_is_an_error_naming_the_attribute(runs):
    path = TORCH / "gl501_torch_bad_step.py"
    finding = only(_run(runs, path.name)["findings"], "GL501")
    assert finding.severity.value == "error"
    assert finding.message.startswith(
        "`Warmup.forward()` reached torch.compile's recompile limit (8 compiles, "
        "torch._dynamo.config.recompile_limit = 8): dynamo gave up on it and runs it eagerly (uncompiled) from then on"
    ), finding.message
    assert "`self.step` (int) 1 → 2 → 3 → 4 → … (7 distinct)" in finding.message
    assert "dynamo's last failed guard: `self.step == 7`" in finding.message
    assert "register_buffer('step'" in finding.fix and "allow_unspec_int_on_nn_module = True" in finding.fix
    assert finding.location.line == line_of(path, "y = model(x)")
    assert [r.location.line for r in finding.related] == [line_of(path, "def forward")]


def test_dynamic_false_with_a_new_length_names_the_shapes_and_mark_dynamic(runs):
    finding = only(_run(runs, "gl501_torch_bad_shape.py")["findings"], "GL501")
    assert finding.severity.value == "warning"
    assert "`encode()` was compiled 7 times by torch.compile (limit 5)" in finding.message
    assert "`tokens` shape (1, 3) → (2, 3) → (3, 3) → (4, 3) → … (7 distinct)" in finding.message
    assert "`tensor 'tokens' size mismatch at index 0. expected 6, actual 7`" in finding.message
    assert finding.fix.startswith("Drop `dynamic=False` from torch.compile")
    assert "torch._dynamo.mark_dynamic(tokens, 0)" in finding.fix


def test_a_changing_float_names_its_values_and_a_0d_tensor(runs):
    finding = only(_run(runs, "gl501_torch_bad_scalar.py")["findings"], "GL501")
    assert "`sgd_step()` was compiled 6 times" in finding.message
    assert "`lr` (float) 0.1 → 0.05 → 0.03333… → 0.025 → … (6 distinct)" in finding.message
    assert "`w`" not in finding.message and "`grad`" not in finding.message  # unchanged
    assert finding.fix.startswith("Pass `lr` as a 0-d tensor (`torch.tensor(value)`)")


def test_torch_compile_per_request_under_inductor(runs):
    path = TORCH / "gl502_torch_bad.py"
    finding = only(_run(runs, path.name)["findings"], "GL502")
    assert finding.message.startswith("this line applied `torch.compile` to `Scorer` 4 times: a new compiled wrapper")
    assert [r.location.line for r in finding.related] == [line_of(path, "def forward")]
    assert "in __init__" in finding.fix


def test_jit_trace_per_call(runs):
    finding = only(_run(runs, "gl502_torch_bad_jit.py")["findings"], "GL502")
    assert finding.message.startswith("this line traced `normalize` 4 times: each trace runs the function again")
    assert "Trace once" in finding.fix


def test_graph_breaks_name_the_line_dynamos_reason_and_the_fix(runs):
    path = TORCH / "gl506_torch_bad.py"
    found = {f.location.line: f for f in _run(runs, path.name)["findings"] if f.code == "GL506"}
    printed, item, looped = (line_of(path, text) for text in ('print("loss"', "loss.item()", 'print("pass"'))
    assert sorted(found) == [printed, item, looped]
    assert found[printed].message.startswith(
        "graph break in `train_step()`: dynamo does not know how to trace builtin operator `print`"
    )
    assert "(1 compile broke here)" in found[printed].message
    assert "reorderable_logging_functions" in found[printed].fix
    assert "capture_scalar_outputs = True" in found[item].fix
    calls = line_of(path, "w = train_step(w, x)")
    assert [r.location.line for r in found[item].related] == [calls]  # the user's call, not the resumed frame
    assert found[looped].severity.value == "error" and "skips the whole frame" in found[looped].message
    assert {found[printed].severity.value, found[item].severity.value} == {"warning"}


@pytest.mark.parametrize("path", sorted(TORCH.glob("*.py")), ids=lambda p: p.name)
def test_both_engines_report_each_torch_sample_alike(runs, path):
    """``graphlint check`` and ``graphlint run`` report the same codes at the same lines with the
    same severity (an error where dynamo gives up on the frame: the recompile limit, a break in a
    loop); the fixes name the same remedies."""
    rules = [cls for cls in discover_rules(plugins=False).values() if cls.checks_statically()]
    static = {(f.code, f.location.line): f for f in check_file(str(path), rules, Config()).findings}
    runtime = {(f.code, f.location.line): f for f in _run(runs, path.name)["findings"]}
    assert set(static) == set(runtime)
    for key, finding in static.items():
        assert finding.severity == runtime[key].severity, (key, finding.message, runtime[key].message)
        words = {"register_buffer", "mark_dynamic", "0-d tensor", "reorderable_logging_functions", "capture_scalar_outputs",
                 "torch.where", "convert it after the call", "Apply torch.compile once", "Trace once"}
        assert {w for w in words if w in finding.fix} == {w for w in words if w in runtime[key].fix}, key
