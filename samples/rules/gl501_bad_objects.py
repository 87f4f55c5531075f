"""GL501 function-retraced: a new Python object, and a longer list, on every iteration.

`Settings(...)` makes a new object per round: tf.function tells Python objects apart by
identity, so each one is a new trace. `recent` grows by one tensor per round: a list of
another length is another structure, and another trace.
"""

import tensorflow as tf


class Settings:
    def __init__(self, rate):
        self.rate = rate


@tf.function
def apply(x, settings):
    return x * settings.rate


@tf.function
def smooth(values):
    return tf.add_n(values) / len(values)


recent = []
x = tf.constant([1.0, 2.0])
for round_ in range(7):
    y = apply(x, Settings(0.5))  # GL501
    recent.append(y)
    print(float(tf.reduce_sum(smooth(recent))))  # GL501
