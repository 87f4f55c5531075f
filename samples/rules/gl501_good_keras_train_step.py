"""A Keras `train_step` override: Keras traces it once for `fit`, and a direct call is eager.

`fit` wraps the override in one `tf.function` and feeds it tensors; the custom loop below
calls the undecorated override directly, which runs eagerly and traces nothing.
"""

import numpy as np
import tensorflow as tf


class Regressor(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((self(x, training=True) - y) ** 2)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


model = Regressor()
model.compile(optimizer="sgd")
x = np.ones((16, 3), np.float32)
y = x.sum(axis=1, keepdims=True)
model.fit(x, y, epochs=3, batch_size=4, verbose=0)
for epoch in range(8):
    model.train_step((tf.constant(x), tf.constant(y)))
print("fitted", model.count_params())
