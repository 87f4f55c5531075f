"""GL201 variable-renamed: two layers ask for the same variable name.

`dense()` names its variables "weights" and "bias" with no scope of its own, so the second layer's
variables are silently renamed to "weights_1" and "bias_1": checkpoints and summaries no
longer say which layer a variable belongs to, and restoring into a model built in a different
order fills the wrong layer.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def dense(x, units, seed):
    init = tf1.random_normal_initializer(stddev=0.1, seed=seed)
    w = tf1.Variable(init([int(x.shape[-1]), units]), name="weights")  # GL201
    b = tf1.Variable(tf.zeros([units]), name="bias")  # GL201
    return tf.matmul(x, w) + b


inputs = tf1.placeholder(tf.float32, [None, 4], name="inputs")
hidden = tf.nn.relu(dense(inputs, 8, seed=1))
output = dense(hidden, 1, seed=2)
init = tf1.global_variables_initializer()

with tf1.Session() as sess:
    sess.run(init)
    print([v.name for v in tf1.global_variables()])
    print(sess.run(output, {inputs: np.ones((2, 4), dtype=np.float32)}))
