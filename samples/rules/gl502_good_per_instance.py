"""Each object makes its own `tf.function` once, in `__init__`: three scalers, three functions.

A function per object is what a decorated method gives too (TensorFlow copies it per
instance); every call of one object's `apply` reuses that object's trace.
"""

import tensorflow as tf


class Scaler(tf.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = tf.Variable(factor)
        self.apply = tf.function(self.scale)

    def scale(self, x):
        return x * self.factor


scalers = [Scaler(float(k)) for k in (1, 2, 3)]
for step in range(4):
    print(step, [s.apply(tf.constant([1.0, 2.0])).numpy().tolist() for s in scalers])
