"""GL201 variable-renamed, Keras form: a block class that hands `name=` on to Keras.

`Block.__init__` passes its `name` to `super().__init__()`, so both blocks of `Tower` are
really named "proj": Keras keeps both, and their weights share paths in checkpoints.
"""

import numpy as np
import keras


class Block(keras.layers.Layer):
    def __init__(self, units, name=None):
        super().__init__(name=name)
        self.dense = keras.layers.Dense(units)

    def call(self, x):
        return self.dense(x)


class Tower(keras.Model):
    def __init__(self):
        super().__init__(name="tower")
        self.inner = Block(8, name="proj")
        self.outer = Block(1, name="proj")  # GL201

    def call(self, x):
        return self.outer(self.inner(x))


tower = Tower()
tower(np.ones((2, 3), dtype="float32"))
print(sorted({layer.name for layer in tower.layers}))
