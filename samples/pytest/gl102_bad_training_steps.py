"""GL102 op-in-run-loop in a test: a test that trains for a number of steps builds an op per step.

The test trains a one-weight model for five steps; each step builds a new gradient and
`assign_sub` on the weight before running them, so the graph grows by the same ops at every step. A test's
loop over cases is not a run loop, but a training loop inside one test is.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def test_weight_decreases_while_training():
    with tf.Graph().as_default(), tf1.Session() as sess:
        weight = tf1.Variable(1.0)
        inputs = tf1.placeholder(tf.float32, [None])
        loss = tf.reduce_mean(tf.square(weight * inputs))
        sess.run(weight.initializer)
        for step in range(5):
            sess.run(tf1.assign_sub(weight, 0.1 * tf.gradients(loss, weight)[0]), {inputs: np.ones(3)})  # GL102
        assert sess.run(weight) < 1.0
