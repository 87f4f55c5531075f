"""GL501 function-retraced: the epoch passed through a helper that runs one epoch.

`run_epoch` passes its `epoch` parameter on to the `tf.function`; the loop below calls it with
every epoch number, so each epoch traces `train_step` again.
"""

import numpy as np
import tensorflow as tf

w = tf.Variable(np.zeros((2, 1), np.float32))
dataset = tf.data.Dataset.from_tensor_slices(np.ones((4, 2), np.float32)).batch(2)


@tf.function
def train_step(x, epoch):
    rate = 0.1 / tf.cast(epoch + 1, tf.float32)
    w.assign_sub(rate * tf.reduce_mean(x) * tf.ones_like(w))


def run_epoch(epoch):
    for x in dataset:
        train_step(x, epoch)  # GL501


for epoch in range(7):
    run_epoch(epoch)
print(w.numpy().ravel())
