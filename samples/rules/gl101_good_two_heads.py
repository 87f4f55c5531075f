"""Two heads of one program, built by one helper from two lines.

`forecast_head()` is called once per horizon, before any session runs: a daily and a weekly
head, each with its own input, kept apart and run together. Two distinct calls whose results
are kept are two parts of the program, not a model rebuilt per call.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

WEIGHTS = np.full((4, 1), 0.5, dtype=np.float32)


def forecast_head():
    inputs = tf1.placeholder(tf.float32, [None, 4], name="inputs")
    prediction = tf.matmul(inputs, WEIGHTS) + 1.0
    return inputs, prediction


daily_inputs, daily = forecast_head()
weekly_inputs, weekly = forecast_head()

batch = np.ones((2, 4), dtype=np.float32)
with tf1.Session() as sess:
    print(sess.run([daily, weekly], {daily_inputs: batch, weekly_inputs: 7 * batch}))
