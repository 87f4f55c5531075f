"""GL301 session-churn: a new Session per call.

`predict()` opens a fresh `tf.compat.v1.Session` every time it is called: each call starts a
runtime, initializes the variables again and throws away the subgraph the previous session had
pruned and cached. Serving five requests builds five sessions for the same graph.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

inputs = tf1.placeholder(tf.float32, [None, 3], name="inputs")
weights = tf1.get_variable("weights", [3, 1], initializer=tf1.constant_initializer(0.5))
bias = tf1.get_variable("bias", [1], initializer=tf1.zeros_initializer())
scores = tf.sigmoid(tf.matmul(inputs, weights) + bias)
init = tf1.global_variables_initializer()


def predict(batch):
    with tf1.Session() as sess:  # GL301
        sess.run(init)
        return sess.run(scores, {inputs: batch})


for request in range(5):
    batch = np.full((2, 3), request / 10, dtype=np.float32)
    print(request, predict(batch).ravel())
