"""GL102 op-in-run-loop through an operator: `x = x + 1` on a tensor in the run loop.

`x + 1` on a tensor is `tf.add`: every step adds an add op (and a constant) fed by the last
step's `x`, so the graph grows by two ops per step and each run prunes a longer chain.
"""

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

x = tf.constant(0.0)
with tf1.Session() as sess:
    for step in range(5):
        x = x + 1.0  # GL102
        print(step, sess.run(x))
