"""`tf.function`s made once: at setup, per mode of a two-mode loop, and while tracing.

`make_step` is called once, before the loop; the two modes make one function each; `unrolled`
applies `tf.function` in a Python loop that runs only while `unrolled` itself is traced.
"""

import numpy as np
import tensorflow as tf

w = tf.Variable(np.ones((3, 1), np.float32))


def make_step(rate):
    @tf.function
    def step(x):
        w.assign_sub(rate * tf.reduce_mean(x) * tf.ones_like(w))
        return w

    return step


def double(x):
    return 2.0 * x


@tf.function
def unrolled(x):
    for _ in range(4):
        x = tf.function(double)(x)
    return x


step = make_step(0.01)
for k in range(6):
    step(np.full((2, 3), k, np.float32))
for mode in ("train", "eval"):
    run = tf.function(lambda x: x * (1.0 if mode == "train" else 0.5))
    run(tf.ones([2]))
for k in range(6):
    unrolled(tf.constant(float(k)))
print("traces:", step.experimental_get_tracing_count(), unrolled.experimental_get_tracing_count())
