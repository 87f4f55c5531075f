"""The same object and a list of one length on every iteration.

`settings` is made once, outside the loop, so every call passes the same object; `window`
always holds the last three values, so its structure never changes.
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


settings = Settings(0.5)
window = [tf.zeros([2])] * 3
x = tf.constant([1.0, 2.0])
for round_ in range(7):
    y = apply(x, settings)
    window = window[1:] + [y]
    print(float(tf.reduce_sum(smooth(window))))
