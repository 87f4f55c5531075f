"""Blocks given one `name=` that their class keeps for itself: Keras names each block apart.

`Block.__init__` takes `name` for its own bookkeeping and never passes it to
`super().__init__()`, so Keras gives every block a unique name of its own (`block`,
`block_1`) and their weights get distinct paths.
"""

import numpy as np
import keras


class Block(keras.layers.Layer):
    def __init__(self, units, name=None):
        super().__init__()
        self.label = name
        self.dense = keras.layers.Dense(units)

    def call(self, x):
        return self.dense(x)


class Tower(keras.Model):
    def __init__(self):
        super().__init__(name="tower")
        self.inner = Block(8, name="proj")
        self.outer = Block(1, name="proj")

    def call(self, x):
        return self.outer(self.inner(x))


tower = Tower()
tower(np.ones((2, 3), dtype="float32"))
paths = [w.path for w in tower.weights]
print(len(paths) == len(set(paths)), sorted({layer.name for layer in tower.layers}))
