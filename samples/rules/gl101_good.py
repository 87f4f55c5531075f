"""The forecaster builds its model once.

`Forecaster.__init__()` builds the placeholder and the layers once, in a graph of its own, and
finalizes it; `forecast()` only runs the tensors it kept, so the graph stays the same size no
matter how many forecasts are made.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

WEIGHTS = np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(4, 2)


class Forecaster:
    def __init__(self, n_features):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.inputs = tf1.placeholder(tf.float32, [None, n_features], name="inputs")
            hidden = tf.nn.relu(tf.matmul(self.inputs, WEIGHTS))
            self.prediction = tf.reduce_sum(hidden, axis=1)
        self.graph.finalize()

    def forecast(self, sess, x):
        return sess.run(self.prediction, {self.inputs: x})


model = Forecaster(4)
batch = np.ones((3, 4), dtype=np.float32)
with tf1.Session(graph=model.graph) as sess:
    print("monday", model.forecast(sess, batch))
    print("tuesday", model.forecast(sess, 2 * batch))
    print("ops in graph:", len(sess.graph.get_operations()))
