"""GL505 layer-created-in-call: Keras 3 and tf-keras layers that create layers or variables in
`call()` — the runtime probe on real Keras (samples and this module's programs in the TF2
sample batch, one eager subprocess; tf-keras through `TF_USE_LEGACY_KERAS=1` and Keras on JAX
each in a subprocess of its own) — and GL201's Keras form: two layers of one
model given the same name. Their static forms: tests/static/test_keras_static.py."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

from harness import HANG_GUARD, SAMPLES, BatchProgram, batch_programs, write_program

pytestmark = pytest.mark.sample_batch("tf2")  # its `runs` are sample_runs("tf2")

RULES = SAMPLES / "rules"
BAD = sorted(RULES.glob("gl505_bad*.py")) + [RULES / "gl201_keras_bad.py"]
GOOD = sorted(RULES.glob("gl505_good*.py")) + [RULES / "gl201_keras_good.py"]
HAS_TF_KERAS = importlib.util.find_spec("tf_keras") is not None
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}


def _needs(path):
    return "tf_keras" in path.read_text() and not HAS_TF_KERAS


@pytest.fixture
def runs(sample_runs):
    """Every TF2 sample (GL505's among them) run under graphlint, in one eager subprocess."""
    return sample_runs("tf2")


def _result(runs, path):
    if _needs(path):
        pytest.skip("tf-keras is not installed")
    return runs[str(path)]


def test_gl505_has_bad_and_good_samples():
    assert (RULES / "gl505_bad.py").is_file() and (RULES / "gl505_good.py").is_file()


def test_runtime_finding_names_the_class_the_call_and_the_fix(runs):
    (finding,) = _result(runs, RULES / "gl505_bad.py")["findings"]
    assert finding.message.startswith(
        "`Scorer.call()` created a new `Dense` layer on call 2 of the same `Scorer` object, 2 times in all"
    )
    assert finding.fix.startswith("Create the `Dense` once in `Scorer.__init__`")
    assert "build()" in finding.fix
    source = (RULES / "gl505_bad.py").read_text().splitlines()
    (related,) = finding.related
    assert "scorer(batch)" in source[related.location.line - 1]  # the second call


def test_variables_made_in_call_are_reported_as_variables(runs):
    (finding,) = _result(runs, RULES / "gl505_bad_variable.py")["findings"]
    assert "created a new variable on call 2 of the same `Scale` object" in finding.message
    assert finding.fix.startswith("Create the variable once in `Scale.__init__`")


def test_bad_sample_really_changes_its_output_and_good_does_not(runs):
    bad = _result(runs, RULES / "gl505_bad.py")["stdout"].splitlines()
    good = _result(runs, RULES / "gl505_good.py")["stdout"].splitlines()
    assert len({line.split(" ", 1)[1] for line in bad}) > 1
    assert len({line.split(" ", 1)[1] for line in good}) == 1


# -- runtime threshold, Keras training, tf-keras through tf.keras -----------------------------------
def _run(tmp_path, body: str, env=None):
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent(body))
    out = tmp_path / "out.json"
    proc = subprocess.run(
        [sys.executable, "-c", "from graphlint.cli import main; main()", "run", "--format", "json",
         "--output", str(out), str(prog)],
        capture_output=True, text=True, env={**ENV, **(env or {})}, timeout=HANG_GUARD,
    )
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return [(f["code"], f["line"]) for f in json.loads(out.read_text())["findings"]], proc


LAYER = """
import numpy as np
import keras

class Block(keras.layers.Layer):
    def call(self, x):
        return keras.layers.Dense(2)(x)

block = Block()
x = np.ones((1, 3), dtype="float32")
"""


def _batched(batch_runs, key: str):
    """``(found, result)`` of this module's program ``key`` run in the TF2 sample batch."""
    result = batch_runs("tf2", "keras_layers")[key]
    assert result["status"] == 0, result["stderr"][-3000:]
    return [(f.code, f.location.line) for f in result["findings"]], result


@pytest.mark.parametrize("calls, reported", [(1, False), (2, True)])
def test_first_call_may_create_the_second_may_not(batch_runs, calls, reported):
    found, result = _batched(batch_runs, f"layer-{calls}")
    assert found == ([("GL505", 7)] if reported else [])


FIT = """
        import numpy as np
        import keras

        class Net(keras.Model):
            def __init__(self):
                super().__init__()
                self.hidden = keras.layers.Dense(8, activation="relu")
                self.out = keras.layers.Dense(1)

            def call(self, x):
                return self.out(self.hidden(x))

        x = np.random.rand(64, 4).astype("float32")
        y = x.sum(axis=1, keepdims=True)
        for model in (Net(), keras.Sequential([keras.layers.Dense(8), keras.layers.Dense(1)])):
            model.compile(optimizer="adam", loss="mse")
            model.fit(x, y, epochs=2, batch_size=16, verbose=0)
            model.evaluate(x, y, verbose=0)
            model.predict(x, verbose=0)
            model(x[:3]); model(x[:5])
        print("ok")
        """


def test_keras_fit_predict_evaluate_of_a_well_built_model_is_clean(batch_runs):
    found, result = _batched(batch_runs, "fit")
    assert found == [] and result["stdout"].strip() == "ok"


@pytest.mark.slow
def test_tf_keras_through_tf_keras_namespace_with_legacy_keras(tmp_path):
    if not HAS_TF_KERAS:
        pytest.skip("tf-keras is not installed")
    found, proc = _run(
        tmp_path,
        """
        import numpy as np
        import tensorflow as tf
        assert tf.keras.__name__.startswith("tf_keras") or "tf_keras" in tf.keras.__file__

        class Block(tf.keras.layers.Layer):
            def call(self, x):
                return tf.keras.layers.Dense(2)(x)

        block = Block()
        for _ in range(3):
            block(np.ones((1, 3), dtype="float32"))
        """,
        env={"TF_USE_LEGACY_KERAS": "1"},
    )
    assert found == [("GL505", 8)], proc.stderr[-2000:]


@pytest.mark.slow
def test_keras_on_the_jax_backend_is_watched_without_tensorflow(tmp_path):
    if importlib.util.find_spec("jax") is None:
        pytest.skip("JAX is not installed")
    found, proc = _run(
        tmp_path,
        LAYER + "for _ in range(3):\n    block(x)\nimport sys\nprint(keras.backend.backend(), 'tensorflow' in sys.modules)\n",
        env={"KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu"},
    )
    assert found == [("GL505", 7)]
    assert proc.stdout.strip().splitlines()[-1] == "jax False"


# -- GL201's Keras form: one name, two layers of one model ----------------------------------------
def test_gl201_keras_names_both_layers_of_a_subclassed_model(runs):
    (finding,) = _result(runs, RULES / "gl201_keras_bad.py")["findings"]
    assert finding.message == (
        "layer name 'proj' is given to two layers of one model: Keras keeps both, and their "
        "weights get the same paths in checkpoints and saved models"
    )
    assert [r.location.line for r in finding.related] == [15]
    assert "own name" in finding.fix
    assert "'tower/proj/kernel'" in _result(runs, RULES / "gl201_keras_bad.py")["stdout"]


DUPLICATES = """
import numpy as np
import {keras} as keras

inp = keras.Input((3,))
a = keras.layers.Dense(4, name="dense")(inp)
b = keras.layers.Dense(2, name="dense")(a)
try:
    keras.Model(inp, b)
except ValueError as exc:
    print("refused")
try:
    keras.Sequential([keras.layers.Dense(4, name="d", input_shape=(3,)),
                      keras.layers.Dense(2, name="d")])
except ValueError as exc:
    print("refused")
ok = keras.Sequential([keras.layers.Dense(4, name="e", input_shape=(3,)), keras.layers.Dense(2, name="f")])
"""


@pytest.mark.parametrize("flavor", ["keras", "tf_keras"])
def test_gl201_keras_names_both_lines_where_keras_refuses_the_model(batch_runs, flavor):
    if flavor == "tf_keras" and not HAS_TF_KERAS:
        pytest.skip("tf-keras is not installed")
    found, result = _batched(batch_runs, f"duplicates-{flavor}")
    assert result["stdout"].split() == ["refused", "refused"]
    assert found == [("GL201", 7), ("GL201", 14)], result["stderr"][-2000:]


HELPER = """
        import numpy as np
        import keras

        def project(x):
            return keras.layers.Dense(2)(x)

        class Block(keras.layers.Layer):
            def call(self, x):
                return project(x)

        block = Block()
        for _ in range(3):
            block(np.ones((1, 3), dtype="float32"))
        """


def test_runtime_gl505_also_finds_a_helper_that_call_uses(batch_runs):
    found, result = _batched(batch_runs, "helper")
    assert found == [("GL505", 6)]


AUTOGRAPH_LAYER = """\
import tensorflow as tf
import keras

class Double(keras.layers.Layer):
    def call(self, x):
        return x * 2.0

print(tf.function(Double())(tf.constant([1.0, 2.0])).numpy().tolist())
"""


@batch_programs("tf2", "keras_layers")
def _programs(folder):
    """This module's Keras programs, run in the TF2 sample batch (eager TensorFlow, Keras 3 or
    tf-keras imported by name): key -> program. AUTOGRAPH_LAYER runs under strict conversion
    (AutoGraph reads the variable at each conversion: set for that program only)."""
    sources = {"layer-1": LAYER + "for _ in range(1):\n    block(x)\n",
               "layer-2": LAYER + "for _ in range(2):\n    block(x)\n",
               "fit": FIT, "helper": HELPER, "duplicates-keras": DUPLICATES.format(keras="keras")}
    if HAS_TF_KERAS:
        sources["duplicates-tf_keras"] = DUPLICATES.format(keras="tf_keras")
    programs = {key: write_program(folder / key, source) for key, source in sources.items()}
    programs["strict"] = BatchProgram(write_program(folder / "strict", AUTOGRAPH_LAYER),
                                      env=(("AUTOGRAPH_STRICT_CONVERSION", "1"),))
    return programs


def test_tf_function_of_a_layer_converts_its_call_as_under_python(batch_runs):
    """tf.function(layer) has AutoGraph convert Layer.__call__ from its source; graphlint's
    wrapper of it keeps a findable source, so strict conversion (Sonnet's Keras conformance
    tests) works as under python instead of raising InaccessibleSourceCodeError."""
    result = batch_runs("tf2", "keras_layers")["strict"]
    assert result["status"] == 0, result["stderr"][-3000:]
    assert result["stdout"].strip().splitlines()[-1] == "[2.0, 4.0]"
    assert result["findings"] == []
