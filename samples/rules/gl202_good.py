"""Each layer asks for its variables in its own scope.

The decoder opens its own scope, so "encoder/kernel" and "decoder/kernel" are two distinct
variables and `get_variable` creates both.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

inputs = tf1.placeholder(tf.float32, [None, 4], name="inputs")
with tf1.variable_scope("encoder"):
    kernel = tf1.get_variable("kernel", [4, 3])
    code = tf.nn.tanh(tf.matmul(inputs, kernel))
with tf1.variable_scope("decoder"):
    kernel = tf1.get_variable("kernel", [3, 4])
    reconstruction = tf.matmul(code, kernel)

with tf1.Session() as sess:
    sess.run(tf1.global_variables_initializer())
    print(sess.run(reconstruction, {inputs: np.ones((1, 4), dtype=np.float32)}))
