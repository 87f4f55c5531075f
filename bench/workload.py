"""The graph the runtime benchmarks build: chains of matmul/add/relu made by nested user
functions, so that graphlint's probes capture realistic user stacks. ``bench/overhead.py``
builds it in its own process; ``bench/run_overhead.py``'s program imports it from here.
Importing this module puts TensorFlow in graph mode (a TF1 workload)."""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.compat.v1.disable_eager_execution()
v1 = tf.compat.v1


def dense(x, w, b):
    return tf.nn.relu(tf.matmul(x, w) + b)


def block(x, w, b):
    h = dense(x, w, b)
    h = dense(h, w, b)
    return tf.add(h, x)


def build_model(target_ops: int):
    """A new graph of about ``target_ops`` ops, and its input placeholder."""
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 8], name="x")
        w = tf.constant(np.eye(8, dtype=np.float32) * 0.5)
        b = tf.constant(np.zeros(8, dtype=np.float32))
        h = x
        while graph.version < target_ops:
            h = block(h, w, b)
    return graph, x
