"""A check helper that builds and evaluates, called from one line for a few cases.

`assert_mean_close()` builds a mean of the values it is given and evaluates it, like a test
assertion; the loop calls it once per case, each time with other values. No model is built
again: each call reads only what it was given, and the calls end with the cases.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

sess = tf1.Session()


def assert_mean_close(values, expected):
    mean = sess.run(tf.reduce_mean(values))
    assert abs(mean - expected) < 1e-6, (mean, expected)


for scale in (1.0, 2.0, 3.0, 4.0):
    assert_mean_close(np.full(5, scale, np.float32), scale)
sess.close()
print("means agree")
