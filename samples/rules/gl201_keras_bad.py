"""GL201 variable-renamed, Keras form: two layers of one model given the same name.

Both `Dense` layers of `Tower` are named "proj". Keras accepts it, but their weights share
the path `tower/proj/kernel` in checkpoints and saved models, so the second one's weights
overwrite (or take) the first one's when the model is saved and loaded.
"""

import numpy as np
import keras


class Tower(keras.Model):
    def __init__(self):
        super().__init__(name="tower")
        self.inner = keras.layers.Dense(8, activation="relu", name="proj")
        self.outer = keras.layers.Dense(1, name="proj")  # GL201

    def call(self, x):
        return self.outer(self.inner(x))


tower = Tower()
batch = np.ones((2, 3), dtype="float32")
tower(batch)
print(sorted({w.path for w in tower.weights}))
