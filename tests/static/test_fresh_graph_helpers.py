"""A loop whose passes start from a fresh graph through a helper (issue 24): a sweep calling a
``reset_graph()`` that wraps ``reset_default_graph()``, a model class whose constructor resets
the default graph, or such a helper imported from another module of the tree. Each pass builds
placeholders, a model and a Session into its own graph and trains (or samples) in a loop of
its own: no GL101/GL102/GL301. The bad twins (the same helper without the reset) are still
found; a pass that only evaluates once is GL301 (tests/runtime/test_fresh_graph_sweep.py)."""

from __future__ import annotations

import pytest

from harness import found, write_program

SWEEP = """\
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
{imports}

def reset_graph(seed=42):
{reset}    tf1.set_random_seed(seed)
    np.random.seed(seed)


def logistic(X, n):
    w = tf1.get_variable("w", [n, 1])
    return tf.sigmoid(tf.matmul(X, w))


for trial in range(10):
    {helper}()
    X = tf1.placeholder(tf.float32, [None, 3])
    y = tf1.placeholder(tf.float32, [None, 1])
    prob = logistic(X, 3)
    loss = tf.reduce_mean(tf.square(prob - y))
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        for step in range(100):
            sess.run(loss, {{X: np.ones((2, 3)), y: np.ones((2, 1))}})
"""
SWEEP_BAD = {("GL102", 19), ("GL102", 20), ("GL102", 21), ("GL102", 22), ("GL301", 23), ("GL102", 24)}

MODEL_CLASS = """\
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


class CharModel:
    def __init__(self, n):
{reset}        tf1.set_random_seed(0)
        self.inputs = tf1.placeholder(tf.float32, [None, n])
        self.out = tf1.layers.dense(self.inputs, 2)


def sample(n):
    model = CharModel(n)
    saver = tf1.train.Saver()
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        text = []
        for step in range(100):
            text.append(sess.run(model.out, {{model.inputs: np.ones((1, n))}}))
        return text


for n in (3, 3, 3):
    sample(n)
"""

RESETS = ["    tf1.reset_default_graph()\n", "    tf.compat.v1.reset_default_graph()\n"]


@pytest.mark.parametrize("reset", RESETS)
def test_a_sweep_through_a_reset_helper_of_the_file_is_silent(tmp_path, reset):
    path = write_program(tmp_path, name="sweep.py", body=SWEEP.format(imports="", reset=reset, helper="reset_graph"))
    assert found("--no-cache", str(path)) == set()


def test_a_sweep_whose_helper_does_not_reset_is_found(tmp_path):
    path = write_program(tmp_path, name="sweep.py", body=SWEEP.format(imports="", reset="", helper="reset_graph"))
    assert found("--no-cache", str(path)) == SWEEP_BAD


def test_a_reset_under_a_branch_of_the_helper_is_no_fresh_start(tmp_path):
    reset = "    if seed is None:\n        tf1.reset_default_graph()\n"
    path = write_program(tmp_path, name="sweep.py", body=SWEEP.format(imports="", reset=reset, helper="reset_graph"))
    assert found("--no-cache", str(path)) == {(code, line + 2) for code, line in SWEEP_BAD}


def test_a_reset_helper_of_another_module_is_followed(tmp_path):
    write_program(tmp_path, name="tools.py", body="import tensorflow as tf\n\n\ndef fresh_graph():\n    tf.compat.v1.reset_default_graph()\n")
    body = SWEEP.format(imports="from tools import fresh_graph", reset="", helper="fresh_graph")
    path = write_program(tmp_path, name="sweep.py", body=body)
    assert found("--no-cache", str(path), cwd=tmp_path) == set()
    write_program(tmp_path, name="tools.py", body="import tensorflow as tf\n\n\ndef fresh_graph():\n    tf.compat.v1.get_default_graph()\n")
    assert found("--no-cache", str(path), cwd=tmp_path) == SWEEP_BAD


def test_a_model_class_whose_constructor_resets_the_graph_is_built_fresh(tmp_path):
    good = write_program(tmp_path, name="good.py", body=MODEL_CLASS.format(reset="        tf1.reset_default_graph()\n"))
    assert found("--no-cache", str(good)) == set()
    bad = write_program(tmp_path, name="bad.py", body=MODEL_CLASS.format(reset=""))
    assert found("--no-cache", str(bad)) == {("GL101", 10), ("GL101", 16), ("GL301", 17)}
