"""GL501 function-retraced: a global step counter passed to a decorated method, and the epoch
number passed to `tf.function(scale)`.

The loop counts steps in a Python int and hands it to the `@tf.function` method `update`;
`scaled` gets the epoch. Both trace again for every new value.
"""

import numpy as np
import tensorflow as tf


def scale(x, factor):
    return x * factor


scaled = tf.function(scale)


class Trainer:
    def __init__(self):
        self.w = tf.Variable(np.ones((2, 1), dtype=np.float32))

    @tf.function
    def update(self, x, global_step):
        decay = 0.5 ** (global_step // 2)
        self.w.assign_sub(0.01 * decay * tf.reduce_mean(x) * tf.ones_like(self.w))
        return self.w


trainer = Trainer()
batches = [tf.ones([2, 2]) * k for k in range(7)]
step = 0
while step < 7:
    step += 1
    trainer.update(batches[step - 1], step)  # GL501
for epoch in range(1, 8):
    print(epoch, float(tf.reduce_sum(scaled(batches[0], epoch))))  # GL501
