"""Each layer of the model has its own name, so each weight has its own path.

Checkpoints and saved models store `tower/hidden/kernel` and `tower/out/kernel` apart.
"""

import numpy as np
import keras


class Tower(keras.Model):
    def __init__(self):
        super().__init__(name="tower")
        self.inner = keras.layers.Dense(8, activation="relu", name="hidden")
        self.outer = keras.layers.Dense(1, name="out")

    def call(self, x):
        return self.outer(self.inner(x))


tower = Tower()
batch = np.ones((2, 3), dtype="float32")
tower(batch)
print(sorted({w.path for w in tower.weights}))
