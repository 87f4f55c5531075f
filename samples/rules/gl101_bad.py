"""GL101 graph-rebuilt: the model is built inside forecast().

`Forecaster.forecast()` creates its placeholder and layers every time it is called, so each call
adds another copy of the model to the one default graph: the graph grows with every forecast
and every call pays for building (and pruning) a fresh subgraph.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

WEIGHTS = np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(4, 2)


class Forecaster:
    def __init__(self, n_features):
        self.n_features = n_features

    def forecast(self, sess, x):
        inputs = tf1.placeholder(tf.float32, [None, self.n_features], name="inputs")  # GL101
        hidden = tf.nn.relu(tf.matmul(inputs, WEIGHTS))
        prediction = tf.reduce_sum(hidden, axis=1)
        return sess.run(prediction, {inputs: x})


model = Forecaster(4)
batch = np.ones((3, 4), dtype=np.float32)
with tf1.Session() as sess:
    print("monday", model.forecast(sess, batch))
    print("tuesday", model.forecast(sess, 2 * batch))
    print("ops in graph:", len(sess.graph.get_operations()))
