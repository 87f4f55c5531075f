"""GL504 predict-in-loop: one frame per `predict`, scaled and cast after `expand_dims`.

Each camera frame becomes a batch of one with `np.expand_dims(frame, 0)`, is divided by 255 and
cast to float32 (still one row), and is scored with its own `predict` call: a data pipeline and
callbacks per frame.
"""

import numpy as np
import keras

model = keras.Sequential([keras.Input(shape=(4, 4, 1)), keras.layers.Flatten(), keras.layers.Dense(2)])
frames = np.arange(8 * 16, dtype=np.uint8).reshape(8, 4, 4, 1)

labels = []
for frame in frames:
    batch = np.expand_dims(frame, 0) / 255.0
    batch = batch.astype("float32")
    labels.append(int(np.argmax(model.predict(batch, verbose=0))))  # GL504
print(labels)
