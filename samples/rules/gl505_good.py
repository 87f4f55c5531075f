"""Layers made in `__init__`, shape-dependent weights in `build()`; `call()` only uses them.

The first call builds the `Dense` and the gain once; every later call reuses them, so the same
input gives the same output and an optimizer can train them.
"""

import numpy as np
import keras

keras.utils.set_random_seed(0)

class Scorer(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(4, activation="relu")

    def build(self, input_shape):
        self.gain = self.add_weight(shape=(4,), initializer="ones", name="gain")

    def call(self, x):
        return keras.ops.sum(self.hidden(x) * self.gain, axis=-1)


scorer = Scorer()
batch = np.ones((2, 3), dtype="float32")
for step in range(3):
    print(step, np.round(np.asarray(scorer(batch)), 3))
