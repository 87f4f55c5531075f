"""GL501 function-retraced: a Keras model's decorated step gets the epoch as a Python int.

`GAN.train_step` is a `@tf.function` method that takes the epoch to anneal its noise; the
custom loop in `train` passes the loop's Python int, so every epoch traces the step again.
"""

import numpy as np
import tensorflow as tf

EPOCHS = 6


class GAN(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.generator = tf.keras.layers.Dense(2)
        self.opt = tf.keras.optimizers.SGD(0.01)

    @tf.function
    def train_step(self, images, epoch):
        noise = tf.random.normal(tf.shape(images)) / (epoch + 1)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((self.generator(noise) - images) ** 2)
        grads = tape.gradient(loss, self.generator.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.generator.trainable_variables))
        return loss

    def train(self, dataset):
        for epoch in range(EPOCHS):
            for images in dataset:
                loss = self.train_step(images, epoch)  # GL501
        return loss


gan = GAN()
dataset = tf.data.Dataset.from_tensor_slices(np.ones((8, 2), np.float32)).batch(4)
print("loss", round(float(gan.train(dataset)), 4))
