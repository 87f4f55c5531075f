"""The learning rate is a tensor and the batch dimension is declared as varying.

`train_step` gets the decaying learning rate as a tensor, so one trace serves every epoch;
`predict` declares `None` rows in its input signature, so batches of any size reuse one trace;
`normalize` is traced once for each of three shapes, which is expected.
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


@tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
def predict(x):
    return tf.matmul(x, w)


@tf.function
def normalize(x):
    return x / tf.reduce_max(x)


for epoch in range(8):
    loss = train_step(x, y, tf.constant(0.1 / (epoch + 1)))
print("loss", round(float(loss), 4))
for rows in range(1, 20):
    predict(np.ones((rows, 4), dtype=np.float32))
for size in (2, 3, 4, 2, 3, 4):
    normalize(tf.ones([size]))
print("traces:", predict.experimental_get_tracing_count(), normalize.experimental_get_tracing_count())
