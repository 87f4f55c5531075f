"""A graph-mode test's compare-with-NumPy helper: a fresh variable per call is each case's own op.

`check_against_numpy()` wraps the case's values in a new variable, applies one op to it,
evaluates it and compares with NumPy. The first test calls it in a loop over a list of ops,
the second from three lines with other reductions: every call builds a different op on
different values. Nothing is rebuilt, and the graph stops growing when the cases end.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def check_against_numpy(sess, tf_op, np_op, values, **kwargs):
    variable = tf1.Variable(values)
    sess.run(variable.initializer)
    np.testing.assert_allclose(sess.run(tf_op(variable, **kwargs)), np_op(values, **kwargs), rtol=1e-5)


def test_elementwise_ops_agree_with_numpy():
    values = np.linspace(0.5, 2.0, 12, dtype=np.float32).reshape(4, 3)
    with tf.Graph().as_default(), tf1.Session() as sess:
        for tf_op, np_op in [(tf.exp, np.exp), (tf.abs, np.abs), (tf.square, np.square), (tf.sqrt, np.sqrt)]:
            check_against_numpy(sess, tf_op, np_op, values)


def test_reductions_agree_with_numpy():
    values = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Graph().as_default(), tf1.Session() as sess:
        check_against_numpy(sess, tf.reduce_sum, np.sum, values, axis=0)
        check_against_numpy(sess, tf.reduce_max, np.max, values, axis=1)
        check_against_numpy(sess, tf.reduce_min, np.min, values, axis=1)
