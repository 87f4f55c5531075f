"""One tf.function run with every dtype and every size, as a test suite checks it.

`scale()` is traced once per (dtype, size) pair: nine traces, more than the limit, but each
dtype and each size comes back again and again — the traces stop when the combinations do.
"""

import tensorflow as tf


@tf.function
def scale(x):
    return 2.0 * x


for dtype in (tf.float16, tf.float32, tf.float64):
    for size in (1, 2, 3):
        print(dtype.name, size, scale(tf.ones([size], dtype)).numpy().tolist())
