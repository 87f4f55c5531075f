"""A deep network built by calling one layer helper in a loop.

`dense()` is called ten times, but each call builds a new layer on top of the previous one
(with its own variables, in its own variable scope): that is a deeper model, not a repeated
copy of the same model.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def dense(x, i, units=8):
    with tf1.variable_scope(f"layer_{i}"):
        w = tf1.get_variable("kernel", [x.shape[-1], units],
                             initializer=tf1.glorot_uniform_initializer(seed=i))
        b = tf1.get_variable("bias", [units], initializer=tf1.zeros_initializer())
        return tf.nn.relu(tf.matmul(x, w) + b)


def build(n_features):
    inputs = tf1.placeholder(tf.float32, [None, n_features], name="inputs")
    x = inputs
    for i in range(10):
        x = dense(x, i)
    return inputs, tf.reduce_mean(x, axis=1)


inputs, output = build(4)
init = tf1.global_variables_initializer()
with tf1.Session() as sess:
    sess.run(init)
    print(sess.run(output, {inputs: np.ones((2, 4), dtype=np.float32)}))
