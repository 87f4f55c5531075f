"""A sublayer created lazily in `call()`, but only once: under `if not hasattr(self, ...)`.

tf-keras lets a layer add sublayers after it is built; the first call creates the `Dense`,
later calls find it and reuse it, so the output stays the same.
"""

import numpy as np
import tf_keras as keras


class Lazy(keras.layers.Layer):
    def call(self, x):
        if not hasattr(self, "dense"):
            self.dense = keras.layers.Dense(2)
        return self.dense(x)


layer = Lazy()
batch = np.ones((2, 3), dtype="float32")
first = np.asarray(layer(batch))
for step in range(3):
    assert np.allclose(np.asarray(layer(batch)), first)
print("stable", first.shape)
