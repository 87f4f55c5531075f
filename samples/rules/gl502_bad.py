"""GL502 function-recreated: `tf.function` applied on every call.

`predict()` wraps the model in a new `tf.function` each time it is called, so every request
traces the model into a new graph again instead of reusing the first trace.
"""

import numpy as np
import tensorflow as tf

weights = tf.Variable(np.linspace(-1.0, 1.0, 4, dtype=np.float32).reshape(4, 1))


def model(x):
    return tf.nn.relu(tf.matmul(x, weights))


def predict(x):
    fast = tf.function(model)  # GL502
    return fast(x)


for request in range(3):
    batch = np.full((2, 4), request, dtype=np.float32)
    print(request, predict(batch).numpy().ravel())
