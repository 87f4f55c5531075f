"""GL501 function-retraced: a Python float passed to a `tf.function`.

The learning rate decays every epoch and is passed as a Python float: `tf.function` keys its
traces on Python values, so every epoch traces `train_step` into a new graph again.
"""

import numpy as np
import tensorflow as tf

w = tf.Variable(np.ones((4, 1), dtype=np.float32))
x = tf.constant(np.linspace(0.0, 1.0, 32, dtype=np.float32).reshape(8, 4))
y = tf.reduce_sum(x, axis=1, keepdims=True)


@tf.function
def train_step(x, y, lr):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.matmul(x, w) - y) ** 2)
    w.assign_sub(lr * tape.gradient(loss, w))
    return loss


for epoch in range(8):
    lr = 0.1 / (epoch + 1)
    loss = train_step(x, y, lr)  # GL501
print("loss", round(float(loss), 4))
