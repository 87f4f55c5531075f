"""GL504 predict-in-loop: `model.predict` on one sample at a time.

Each reading is scored with its own `predict` call: every call builds a data pipeline and
callbacks for a single row, which costs far more than the model itself.
"""

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
readings = np.linspace(0.0, 1.0, 32, dtype=np.float32).reshape(8, 4)

scores = []
for reading in readings:
    scores.append(model.predict(reading[None], verbose=0)[0, 0])  # GL504
print(np.round(scores, 3))
