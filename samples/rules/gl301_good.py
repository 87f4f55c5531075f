"""The fix for session churn: one Session, created once and kept.

The `Predictor` opens its session in `__init__`, initializes the variables once and only calls
`run()` per request; the session is closed once, when serving is over.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class Predictor:
    def __init__(self):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.inputs = tf1.placeholder(tf.float32, [None, 3], name="inputs")
            weights = tf1.get_variable("weights", [3, 1], initializer=tf1.constant_initializer(0.5))
            bias = tf1.get_variable("bias", [1], initializer=tf1.zeros_initializer())
            self.scores = tf.sigmoid(tf.matmul(self.inputs, weights) + bias)
            init = tf1.global_variables_initializer()
        self.graph.finalize()
        self.sess = tf1.Session(graph=self.graph)
        self.sess.run(init)

    def predict(self, batch):
        return self.sess.run(self.scores, {self.inputs: batch})

    def close(self):
        self.sess.close()


predictor = Predictor()
for request in range(5):
    batch = np.full((2, 3), request / 10, dtype=np.float32)
    print(request, predictor.predict(batch).ravel())
predictor.close()
