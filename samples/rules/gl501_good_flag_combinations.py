"""One tf.function traced once per combination of its flags, on purpose.

`normalize()` takes two Python flags and an optional offset: a test (or a sweep) calls it
with every combination. Each combination is one trace, and there are only so many of them:
the traces stop when the combinations do.
"""

import itertools

import tensorflow as tf


@tf.function
def normalize(x, center, scale, offset=None):
    if center:
        x = x - tf.reduce_mean(x)
    if scale:
        x = x / (tf.math.reduce_std(x) + 1e-6)
    if offset is not None:
        x = x + offset
    return x


x = tf.range(6, dtype=tf.float32)
for center, scale, offset in itertools.product((True, False), (True, False), (None, tf.ones(6))):
    print(center, scale, offset is None, normalize(x, center, scale, offset).numpy().round(2))
