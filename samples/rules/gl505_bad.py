"""GL505 layer-created-in-call: a `Dense` layer built inside `call()`.

`Scorer.call()` makes a new `Dense` on every call, with new random weights: the same input
scores differently each time, and no optimizer ever sees those weights.
"""

import numpy as np
import keras

keras.utils.set_random_seed(0)

class Scorer(keras.layers.Layer):
    def call(self, x):
        hidden = keras.layers.Dense(4, activation="relu")(x)  # GL505
        return keras.ops.sum(hidden, axis=-1)


scorer = Scorer()
batch = np.ones((2, 3), dtype="float32")
for step in range(3):
    print(step, np.round(np.asarray(scorer(batch)), 3))
