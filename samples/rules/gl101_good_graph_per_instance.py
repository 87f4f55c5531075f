"""One model per instance, each in a graph of its own.

Each `Regressor` builds its model once, in `__init__`, under its own
`tf.Graph().as_default()`, and keeps one session for it; `predict()` only runs tensors. Two
instances mean two graphs with one copy each, however often they predict.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class Regressor:
    def __init__(self, scale):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.inputs = tf1.placeholder(tf.float32, [None, 3], name="inputs")
            w = tf1.get_variable("w", [3, 1], initializer=tf1.constant_initializer(scale))
            self.output = tf.matmul(self.inputs, w)
            init = tf1.global_variables_initializer()
        self.graph.finalize()
        self.sess = tf1.Session(graph=self.graph)
        self.sess.run(init)

    def predict(self, x):
        return self.sess.run(self.output, {self.inputs: x})

    def close(self):
        self.sess.close()


small, large = Regressor(0.1), Regressor(10.0)
try:
    for step in range(3):
        x = np.full((1, 3), step, dtype=np.float32)
        print(step, small.predict(x).item(), large.predict(x).item())
finally:
    small.close()
    large.close()
