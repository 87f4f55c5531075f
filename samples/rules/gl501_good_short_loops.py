"""Python values that change in a loop but cannot retrace past the limit, and tensors.

Two modes, five learning rates (the limit is five traces), a flag, a value made a tensor before
the call, batches from a dataset, a counter in an input signature: no function is traced more
than five times.
"""

import numpy as np
import tensorflow as tf


@tf.function
def by_mode(x, mode):
    return x + 1.0 if mode == "train" else x


@tf.function
def by_rate(x, rate, warm):
    y = x * rate
    if warm:
        y = y * 0.5
    return y


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)])
def shifted(x, step):
    return x + tf.cast(step, tf.float32)


@tf.function
def scaled(x, factor):
    return x * factor


x = tf.ones([2])
dataset = tf.data.Dataset.from_tensor_slices(np.ones((8, 2), np.float32)).batch(2)
for epoch in range(10):
    for mode in ("train", "eval"):
        by_mode(x, mode)
for i in range(5):
    by_rate(x, 0.1 * (i + 1), i == 0)
for step in range(20):
    shifted(x, step)
    factor = tf.constant(float(step))
    scaled(x, factor)
    scaled(x, tf.cast(step, tf.float32))
for batch in dataset:
    scaled(batch, 2.0)
print("traces:", by_rate.experimental_get_tracing_count(), scaled.experimental_get_tracing_count())
