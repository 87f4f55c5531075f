"""Each layer's variables live under the layer's own name.

`dense()` opens a variable scope named after the layer, so its variables are
"hidden/weights" and "output/weights": every name is the one the code asked for.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def dense(x, units, seed, name):
    with tf1.variable_scope(name):
        init = tf1.random_normal_initializer(stddev=0.1, seed=seed)
        w = tf1.Variable(init([int(x.shape[-1]), units]), name="weights")
        b = tf1.Variable(tf.zeros([units]), name="bias")
        return tf.matmul(x, w) + b


inputs = tf1.placeholder(tf.float32, [None, 4], name="inputs")
hidden = tf.nn.relu(dense(inputs, 8, seed=1, name="hidden"))
output = dense(hidden, 1, seed=2, name="output")
init = tf1.global_variables_initializer()

with tf1.Session() as sess:
    sess.run(init)
    print([v.name for v in tf1.global_variables()])
    print(sess.run(output, {inputs: np.ones((2, 4), dtype=np.float32)}))
