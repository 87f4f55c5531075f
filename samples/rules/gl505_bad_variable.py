"""GL505 layer-created-in-call: a `tf.Variable` made inside `call()`.

`Scale.call()` makes its gain as a new `tf.Variable` on every call: each call starts from the
initial value again, and no optimizer ever trains it.
"""

import numpy as np
import keras
import tensorflow as tf


class Scale(keras.layers.Layer):
    def call(self, x):
        gain = tf.Variable(tf.ones((x.shape[-1],)), name="gain")  # GL505
        return x * gain


scale = Scale()
batch = np.ones((2, 3), dtype="float32")
for step in range(3):
    print(step, float(np.asarray(scale(batch)).sum()))
