"""GL505 layer-created-in-call: a Keras 3 `Dropout` made inside `call()`.

A Keras 3 `Dropout` owns a seed generator, a variable made with the layer: `Noisy.call()`
makes a new one on every call. Eager calls run, but under `tf.function` (as in `fit`) the
layer fails with "tf.function only supports singleton tf.Variables created on the first call".
"""

import numpy as np
import keras


class Noisy(keras.layers.Layer):
    def call(self, x, training=None):
        dropped = keras.layers.Dropout(0.5)(x, training=training)  # GL505
        return keras.layers.Flatten()(dropped)


noisy = Noisy()
batch = np.ones((2, 3), dtype="float32")
for step in range(3):
    print(step, np.asarray(noisy(batch, training=True)).shape)
