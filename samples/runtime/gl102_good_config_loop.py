"""A test's loop over a few configurations: each step builds from other tensors.

Each pass of the loop takes another pair of prepared inputs, builds one comparison from them
and evaluates it once. The steps do not rebuild the same computation: each reads tensors no
earlier step read, and the graph stops growing when the cases run out.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

cases = [(tf.constant(np.full(3, v, np.float32)), tf.constant(np.full(3, 2 * v, np.float32))) for v in (1, 2, 3, 4)]
with tf1.Session() as sess:
    for left, right in cases:
        ratio = sess.run(tf.reduce_mean(right / left))
        assert ratio == 2.0, ratio
print("all cases agree")
