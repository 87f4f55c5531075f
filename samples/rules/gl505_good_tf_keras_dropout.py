"""A tf-keras `Dropout` made inside `call()`: tf-keras' dropout holds no variable.

Unlike Keras 3's, tf-keras' `Dropout` draws its mask without a variable of its own, so a new
one per call loses nothing and traces under `tf.function` again and again.
"""

import numpy as np
import tensorflow as tf
import tf_keras as keras


class Noisy(keras.layers.Layer):
    def call(self, x, training=None):
        return keras.layers.Dropout(0.5)(x, training=training)


noisy = Noisy()
traced = tf.function(lambda t: noisy(t, training=True))
for rows in (2, 3, 4):
    print(rows, traced(tf.ones((rows, 3))).shape)
