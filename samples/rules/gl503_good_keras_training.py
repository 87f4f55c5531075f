"""An ordinary Keras training script: one model, fit, evaluate and predict.

Keras traces its train, test and predict functions once each (again only for the smaller last
batch); nothing here rebuilds a model, a function or a graph.
"""

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
x = rng.normal(size=(200, 8)).astype(np.float32)
y = (x.sum(axis=1, keepdims=True) > 0).astype(np.float32)

model = tf.keras.Sequential(
    [tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(1)]
)
model.compile(optimizer="adam", loss=tf.keras.losses.BinaryCrossentropy(from_logits=True), metrics=["accuracy"])
model.fit(x, y, epochs=3, batch_size=32, validation_split=0.2, verbose=0)
loss, accuracy = model.evaluate(x, y, verbose=0)
predictions = model.predict(x[:50], verbose=0)
print("loss", round(loss, 3), "accuracy", round(accuracy, 3), predictions.shape)
