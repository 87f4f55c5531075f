"""The forecast story, part 1: the model is built inside forecast().

Every call adds another copy of the model to the one default graph; the second call dies with
"Variable weight_def/weights already exists, disallowed".
Expected: GL101 and GL202.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class Forecaster:
    def __init__(self, n_features):
        self.n_features = n_features

    def forecast(self, x):
        inputs = tf1.placeholder(tf.float32, [None, self.n_features], name="inputs")  # GL101
        with tf1.variable_scope("weight_def"):
            weights = tf1.get_variable("weights", [self.n_features, 1])  # GL202
            bias = tf1.get_variable("bias", [1], initializer=tf1.zeros_initializer())
        prediction = tf.matmul(inputs, weights) + bias
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            return sess.run(prediction, {inputs: x})


model = Forecaster(4)
batch = np.ones((2, 4), dtype=np.float32)
print(model.forecast(batch).shape)
print(model.forecast(batch).shape)
