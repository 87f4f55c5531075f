"""GL501 function-retraced: a custom training loop passes its Python step counters.

`train_step` takes the epoch and the batch index as Python ints (to log and to warm the
learning rate up): every new int is a new trace key, so nearly every step traces the whole
training step into a new graph again.
"""

import numpy as np
import tensorflow as tf

w = tf.Variable(np.zeros((3, 1), dtype=np.float32))
features = np.linspace(0.0, 1.0, 24, dtype=np.float32).reshape(8, 3)
dataset = tf.data.Dataset.from_tensor_slices((features, features.sum(axis=1, keepdims=True))).batch(2)


@tf.function
def train_step(x, y, epoch, step):
    warmup = tf.minimum(1.0, tf.cast(step + 1, tf.float32) / 4.0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.matmul(x, w) - y) ** 2)
    w.assign_sub(0.1 * warmup * tape.gradient(loss, w))
    return loss


for epoch in range(3):
    for step, (x, y) in enumerate(dataset):
        loss = train_step(x, y, epoch, step)  # GL501
print("loss", round(float(loss), 4))
