"""GL503 keras-model-churn: a new Keras model per iteration, never cleared.

The search builds a model for every width and never calls `clear_session()`: Keras keeps the
state of every model built so far, so memory and layer-name counters grow with each iteration.
"""

import numpy as np
import tensorflow as tf

x = np.linspace(0.0, 1.0, 32, dtype=np.float32).reshape(8, 4)
y = x.sum(axis=1, keepdims=True)

for units in (2, 4, 8):
    model = tf.keras.Sequential(  # GL503
        [tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(units), tf.keras.layers.Dense(1)]
    )
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(x, y, epochs=2, verbose=0)
    print(units, round(history.history["loss"][-1], 4))
