"""The model is loaded once and only its weights are refreshed.

The evaluation loop scores every batch with the model loaded before it; the watcher's model is
built from the JSON config once, before its endless loop, which only loads new weights into
that model: no pass builds another Keras model.
"""

import os
import tempfile

import numpy as np
import tensorflow as tf

folder = tempfile.mkdtemp()
saved = os.path.join(folder, "scorer.keras")
weights = os.path.join(folder, "scorer.weights.h5")
scorer = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
scorer.save(saved)
scorer.save_weights(weights)
config = scorer.to_json()

batches = [np.full((2, 4), k, np.float32) for k in range(3)]
model = tf.keras.models.load_model(saved)
for batch in batches:
    print(model.predict(batch, verbose=0).shape)

watcher = tf.keras.models.model_from_json(config)
checks = 0
while True:
    watcher.load_weights(weights)
    checks += 1
    if checks == 3:
        break
print("checks:", checks)
