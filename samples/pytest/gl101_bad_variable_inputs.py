"""GL101 graph-rebuilt, one finding for one cause: a per-call function fed a variable.

`BackendFunction` works as a TF1 Keras backend function given `tf.Variable` inputs does:
each call first readies the session (Keras initializes new variables there), then builds a
read of the variable and the computation on it, and runs them through a new callable. A
training loop of thirty steps builds thirty copies. The function builds and runs per call:
that is the rebuild, reported once, and not a second time as ops built in the loop.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


class BackendFunction:
    def __init__(self, sess, compute):
        self.sess = sess
        self.compute = compute
        self.ready = tf.no_op()

    def __call__(self, variable):
        self.sess.run(self.ready)
        value = tf.identity(variable)  # GL101
        return self.sess.make_callable(self.compute(value))()


def test_thirty_steps_on_variable_inputs():
    with tf.Graph().as_default(), tf1.Session() as sess:
        data = tf1.Variable(np.ones((4, 2), np.float32))
        sess.run(data.initializer)
        step = BackendFunction(sess, lambda x: tf.reduce_sum(x * 2.0))
        for _ in range(30):
            assert step(data) == 16.0
