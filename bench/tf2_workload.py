"""The TF2 training step the runtime benchmarks time: a small ``@tf.function`` (a two-layer
MLP, GradientTape, SGD update on ``tf.Variable``s) on a 32×16 batch, the pattern where per-call
overhead shows most, since each step is tiny. ``bench/tf2_overhead.py`` times it in its own
process; ``bench/run_overhead.py``'s program imports it from here."""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

STEPS = 2_000

rng = np.random.default_rng(0)
X = tf.constant(rng.normal(size=(32, 16)).astype(np.float32))
Y = tf.constant(rng.normal(size=(32, 1)).astype(np.float32))


def make_step():
    w1 = tf.Variable(rng.normal(size=(16, 32)).astype(np.float32) * 0.1)
    w2 = tf.Variable(rng.normal(size=(32, 1)).astype(np.float32) * 0.1)

    @tf.function
    def train_step(x, y, lr):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1))
            loss = tf.reduce_mean((tf.matmul(h, w2) - y) ** 2)
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(lr * g1)
        w2.assign_sub(lr * g2)
        return loss

    return train_step


def train(step, n: int) -> float:
    lr = tf.constant(0.01)
    loss = None
    for _ in range(n):
        loss = step(X, Y, lr)
    return float(loss)
