"""GL504 predict-in-loop: one face per `predict`, given its channel axis after `expand_dims`.

Each grey face becomes a batch of one with `np.expand_dims(face, 0)` and then gets the channel
axis the model expects with `np.expand_dims(face, -1)`: a new trailing axis, still one row. Each
face is scored with its own `predict` call: a data pipeline and callbacks per face.
"""

import numpy as np
import keras

model = keras.Sequential([keras.Input(shape=(4, 4, 1)), keras.layers.Flatten(), keras.layers.Dense(2)])
faces = np.arange(8 * 16, dtype=np.float32).reshape(8, 4, 4) / 128.0

labels = []
for face in faces:
    face = np.expand_dims(face, 0)
    face = np.expand_dims(face, -1)
    labels.append(int(np.argmax(model.predict(face, verbose=0))))  # GL504
print(labels)
