"""GL501 function-retraced: every batch has a new shape.

The last batch of each request has a different number of rows: each new shape is a new trace
of `predict`, because the function was declared without an input signature.
"""

import numpy as np
import tensorflow as tf

w = tf.constant(np.ones((4, 2), dtype=np.float32))


@tf.function
def predict(x):
    return tf.nn.relu(tf.matmul(x, w))


for rows in range(1, 9):
    batch = np.ones((rows, 4), dtype=np.float32)
    print(rows, predict(batch).shape)  # GL501
