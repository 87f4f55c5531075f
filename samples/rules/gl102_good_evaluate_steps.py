"""A graph-mode test's shape: build, evaluate, build, evaluate — from different lines.

Each check builds a small computation and evaluates it once; five checks are five lines of
the program, not a loop that builds at every step, and the graph stops growing when the
checks end.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
with tf1.Session() as sess:
    assert sess.run(tf.reduce_sum(x)) == 15.0
    assert sess.run(tf.reduce_max(x)) == 5.0
    assert sess.run(tf.reduce_min(x)) == 0.0
    assert sess.run(tf.reduce_mean(x)) == 2.5
    assert sess.run(tf.shape(x))[0] == 2
print("checks passed")
