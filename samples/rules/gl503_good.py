"""The search clears Keras' global state before building each model.

`clear_session()` at the start of every iteration drops the previous model's state, so each
iteration starts as fresh as the first.
"""

import numpy as np
import tensorflow as tf

x = np.linspace(0.0, 1.0, 32, dtype=np.float32).reshape(8, 4)
y = x.sum(axis=1, keepdims=True)

for units in (2, 4, 8):
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential(
        [tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(units), tf.keras.layers.Dense(1)]
    )
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(x, y, epochs=2, verbose=0)
    print(units, round(history.history["loss"][-1], 4))
