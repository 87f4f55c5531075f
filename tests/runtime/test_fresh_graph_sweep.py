"""Both engines on sweeps whose every pass starts from a fresh graph (issue 24): a trial loop
calling a `reset_graph()` helper that wraps `reset_default_graph()`, and a model class whose
constructor resets the default graph, built per sampling call. Neither engine reports the
placeholders, model or Saver each pass builds (GL101, GL102): they land in the pass's own graph.

The one difference, GL301 on the pass's Session: the static engine sees a loop whose passes
start from a fresh graph (a sweep) and stays silent; the runtime counts a line's
sessions that feed inputs whatever graph they run — one fed session per fresh graph is what a
model rebuilt per call (that could be kept and fed) looks like too, and the runtime sees no
loop to tell the two apart."""

from __future__ import annotations

import json

from click.testing import CliRunner

from harness import run_in_process
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


def test_a_trial_loop_through_a_reset_helper_differs_only_in_gl301(tmp_path):
    path = tmp_path / "sweep.py"
    path.write_text(SWEEP)
    assert _static(path) == set()
    assert _runtime(path) == {("GL301", 23)}


def test_a_model_class_resetting_the_graph_differs_only_in_gl301(tmp_path):
    path = tmp_path / "sample.py"
    path.write_text(MODEL_CLASS)
    assert _static(path) == set()
    assert _runtime(path) == {("GL301", 19)}
