"""GL505 layer-created-in-call with tf-keras: a weight added inside `call()`.

`Scale.call()` calls `self.add_weight` on every call: tf-keras makes a fresh variable each
time, initialised anew, so training never moves the gain the layer uses.
"""

import numpy as np
import tf_keras as keras


class Scale(keras.layers.Layer):
    def call(self, x):
        gain = self.add_weight(name="gain", shape=(x.shape[-1],), initializer="ones")  # GL505
        return x * gain


scale = Scale()
batch = np.ones((2, 3), dtype="float32")
for step in range(3):
    print(step, float(np.asarray(scale(batch)).sum()))
