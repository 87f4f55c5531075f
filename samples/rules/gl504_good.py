"""All readings are scored in one batched `predict` call, or by calling the model directly.

One `predict` call sets up its pipeline once for the whole batch; when each score is needed at
once, `model(x, training=False)` runs the model without that setup.
"""

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
readings = np.linspace(0.0, 1.0, 32, dtype=np.float32).reshape(8, 4)

scores = model.predict(readings, verbose=0)[:, 0]
print(np.round(scores, 3))
for reading in readings:
    score = model(reading[None], training=False)
print(np.round(float(score[0, 0]), 3))
