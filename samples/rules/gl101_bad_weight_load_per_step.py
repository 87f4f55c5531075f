"""GL101 graph-rebuilt: the weight load of `gl102_good_weight_load.py`, run at every step.

`load_weights()` is the same walk over `tf.global_variables()`, but the run loop calls it at
every step (to reset the weights): each call adds a placeholder and an assign per variable
again, and the graph grows with the steps (GL101: the function, not the loop over the
variables, is what repeats).
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
        value = tf1.placeholder(var.dtype.base_dtype, var.get_shape())  # GL101
        sess.run(var.assign(value), {value: weights[var.name]})


with tf1.Session() as sess:
    batch = np.ones((2, 3), dtype=np.float32)
    for step in range(5):
        load_weights(sess, saved)  # reset the weights before every step
        print(step, sess.run(scores, {inputs: batch}).ravel())
