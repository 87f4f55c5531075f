"""A user's layer class that takes `name=` and keeps it to itself: Keras names the layers.

`Block` accepts a `name` (for its own log line) but never passes it to
`super().__init__()`, so Keras gives each block its own unique name: two blocks built with
the same `name=` in one model clash nowhere.
"""

import keras
import numpy as np


class Block(keras.layers.Layer):
    def __init__(self, units, name=None):
        super().__init__()
        self.label = name
        self.dense = keras.layers.Dense(units)

    def call(self, x):
        return self.dense(x)


def test_two_blocks_with_one_label():
    inputs = keras.Input((4,))
    outputs = Block(2, name="encoder")(Block(3, name="encoder")(inputs))
    model = keras.Model(inputs, outputs)
    names = [layer.name for layer in model.layers[1:]]
    assert len(set(names)) == 2 and "encoder" not in names
    assert model.predict(np.ones((1, 4)), verbose=0).shape == (1, 2)
