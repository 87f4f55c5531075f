"""GL101 graph-rebuilt hidden behind `with tf.Graph():` (GL103 graph-not-default).

The author meant to give every forecast a fresh graph, but `with tf.Graph():` does not make the
new graph the default: every call still builds another copy of the model into the one global
default graph.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

WEIGHTS = np.full((4, 1), 0.25, dtype=np.float32)


def forecast(x):
    with tf.Graph():  # GL103
        inputs = tf1.placeholder(tf.float32, [None, 4], name="inputs")  # GL101
        prediction = tf.matmul(inputs, WEIGHTS)
        with tf1.Session() as sess:
            return sess.run(prediction, {inputs: x})


batch = np.ones((2, 4), dtype=np.float32)
print(forecast(batch))
print(forecast(2 * batch))
print("ops in the default graph:", len(tf1.get_default_graph().get_operations()))
