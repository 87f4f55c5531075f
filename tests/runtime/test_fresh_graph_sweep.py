"""Both engines on loops whose every pass starts from a fresh graph (issue 24): a trial loop
calling a `reset_graph()` helper that wraps `reset_default_graph()`, and a model class whose
constructor resets the default graph, built per sampling call. Neither engine reports the
placeholders, model or Saver each pass builds (GL101, GL102): they land in the pass's own graph.

GL301 tells a sweep from a model rebuilt per call by what each pass's Session does: a whole run
(a loop of runs statically, at least `WHOLE_RUN` runs at runtime) is a trial and stays silent;
a few runs (initialise or restore, then evaluate) per fresh graph is a model that could have
been built once and fed, and both engines report it at the Session's line."""

from __future__ import annotations

import json

from click.testing import CliRunner

import pytest

from harness import run_in_process
from graphlint.rules.session_churn.runtime import WHOLE_RUN
from graphlint.cli import main

SWEEP = """\
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def reset_graph(seed=42):
    tf1.reset_default_graph()
    tf1.set_random_seed(seed)


def logistic(X, n):
    w = tf1.get_variable("w", [n, 1])
    return tf.sigmoid(tf.matmul(X, w))


for trial in range(4):
    reset_graph()
    X = tf1.placeholder(tf.float32, [None, 3])
    y = tf1.placeholder(tf.float32, [None, 1])
    loss = tf.reduce_mean(tf.square(logistic(X, 3) - y))
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        sess.run(loss, {X: np.ones((2, 3)), y: np.ones((2, 1))})
"""

MODEL_CLASS = """\
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class CharModel:
    def __init__(self, n):
        tf1.reset_default_graph()
        self.inputs = tf1.placeholder(tf.float32, [None, n])
        self.w = tf1.get_variable("w", [n, 2])
        self.out = tf.matmul(self.inputs, self.w)


def sample(n):
    model = CharModel(n)
    saver = tf1.train.Saver()
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        return sess.run(model.out, {model.inputs: np.ones((1, n))})


for n in (3, 3, 3, 3):
    sample(n)
"""


def _static(path) -> set:
    result = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json", "--exit-zero", str(path)])
    return {(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]}


def _runtime(path) -> set:
    findings, outcome = run_in_process(path)
    assert outcome.status == 0
    return {(f.code, f.location.line) for f in findings}


def test_a_fresh_graph_per_pass_for_one_evaluation_is_gl301_in_both_engines(tmp_path):
    path = tmp_path / "sweep.py"
    path.write_text(SWEEP)
    assert _static(path) == {("GL301", 23)}
    assert _runtime(path) == {("GL301", 23)}


def test_a_model_class_resetting_the_graph_per_call_is_gl301_in_both_engines(tmp_path):
    path = tmp_path / "sample.py"
    path.write_text(MODEL_CLASS)
    assert _static(path) == {("GL301", 19)}
    assert _runtime(path) == {("GL301", 19)}


TRAINS = "        for step in range({steps}):\n            sess.run(loss, {{X: np.ones((2, 3)), y: np.ones((2, 1))}})\n"
SAMPLES_CHARS = "        for step in range({steps}):\n            sess.run(model.out, {{model.inputs: np.ones((1, n))}})\n"


def _trial(program: str, body: str, steps: int) -> str:
    """``program`` whose pass runs its session ``steps`` times in a loop of its own."""
    if program is SWEEP:
        old = "        sess.run(loss, {X: np.ones((2, 3)), y: np.ones((2, 1))})\n"
    else:
        old = "        return sess.run(model.out, {model.inputs: np.ones((1, n))})\n"
    assert old in program
    return program.replace(old, body.format(steps=steps))


@pytest.mark.parametrize("program, body", [(SWEEP, TRAINS), (MODEL_CLASS, SAMPLES_CHARS)], ids=["trial-loop", "model-class"])
def test_a_whole_run_per_fresh_graph_is_a_sweep_in_both_engines(tmp_path, program, body):
    """Each pass trains (or samples) in a loop of its own: `WHOLE_RUN` runs, counting the
    initialiser, is a whole run; one fewer is still a model rebuilt for a few runs."""
    path = tmp_path / "trials.py"
    path.write_text(_trial(program, body, WHOLE_RUN - 1))
    assert _static(path) == set()
    assert _runtime(path) == set()
    path.write_text(_trial(program, body, WHOLE_RUN - 2))
    assert _runtime(path) == {("GL301", 23 if program is SWEEP else 19)}
