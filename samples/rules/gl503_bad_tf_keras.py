"""GL503 keras-model-churn with tf-keras (Keras 2, `import tf_keras`).

A hyper-parameter sweep builds a new tf-keras model per trial and never calls
`tf_keras.backend.clear_session()`: every model's layers stay in tf-keras' global state.
"""

import numpy as np
import tf_keras

x = np.ones((8, 3), dtype=np.float32)
y = np.zeros((8, 1), dtype=np.float32)
for units in (2, 4, 8, 16):
    model = tf_keras.Sequential([tf_keras.layers.Dense(units, input_shape=(3,)), tf_keras.layers.Dense(1)])  # GL503
    model.compile(optimizer="sgd", loss="mse")
    print(units, model.evaluate(x, y, verbose=0))
