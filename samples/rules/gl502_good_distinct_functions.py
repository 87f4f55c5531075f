"""One line that compiles distinct functions, each once: a list of kernels, a test helper.

`compiled` wraps each function of a list in `tf.function` in one comprehension, and
`run_compiled` (a helper, as a test suite has) is called with a different function from each
of its three calling lines: one line makes many functions, but never the same one twice.
"""

import tensorflow as tf


def double(x):
    return 2.0 * x


def square(x):
    return x * x


def shift(x):
    return x + 1.0


def run_compiled(fn, x):
    return tf.function(fn)(x).numpy()


compiled = [tf.function(fn) for fn in (double, square, shift)]
x = tf.constant([1.0, 2.0])
print([fn(x).numpy().tolist() for fn in compiled])
print(run_compiled(double, x), run_compiled(square, x), run_compiled(shift, x))
