"""All faces given their channel axis at once, then one `predict` for the whole batch.

The same trailing `np.expand_dims(..., -1)` as `gl504_bad_channel_axis.py`, applied to the stack
of faces: a batch of eight, scored by one `predict` call.
"""

import numpy as np
import keras

model = keras.Sequential([keras.Input(shape=(4, 4, 1)), keras.layers.Flatten(), keras.layers.Dense(2)])
faces = np.arange(8 * 16, dtype=np.float32).reshape(8, 4, 4) / 128.0

batch = np.expand_dims(faces, -1)
labels = [int(i) for i in np.argmax(model.predict(batch, verbose=0), axis=1)]
print(labels)
