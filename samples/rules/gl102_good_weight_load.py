"""A one-time weight load: a placeholder and an assign per variable, run once.

`load_weights()` walks `tf.global_variables()` once, after the model is built, and feeds each
variable its saved value through a placeholder of the variable's own dtype and shape: one
placeholder and one assign per variable, a fixed number of ops, not one more per step.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

inputs = tf1.placeholder(tf.float32, [None, 3], name="inputs")
w1 = tf1.get_variable("w1", [3, 4], initializer=tf1.ones_initializer())
w2 = tf1.get_variable("w2", [4, 1], initializer=tf1.ones_initializer())
scores = tf.matmul(tf.nn.relu(tf.matmul(inputs, w1)), w2)
saved = {v.name: np.full(v.get_shape().as_list(), 0.1, np.float32) for v in tf1.global_variables()}


def load_weights(sess, weights):
    for var in tf1.global_variables():
        value = tf1.placeholder(var.dtype.base_dtype, var.get_shape())
        sess.run(var.assign(value), {value: weights[var.name]})


with tf1.Session() as sess:
    load_weights(sess, saved)
    batch = np.ones((2, 3), dtype=np.float32)
    for step in range(5):
        print(step, sess.run(scores, {inputs: batch}).ravel())
