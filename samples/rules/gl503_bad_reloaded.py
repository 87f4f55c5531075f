"""GL503 keras-model-churn: the model loaded, or rebuilt from its config, on every pass.

The evaluation loop loads the whole saved model for each batch it scores, and the watcher's
endless loop rebuilds the model from its JSON config whenever it looks for new weights. Each
load builds a new Keras model with new layers and weights; nothing calls `clear_session()`,
so Keras' state grows with every pass.
"""

import os
import tempfile

import numpy as np
import tensorflow as tf

folder = tempfile.mkdtemp()
saved = os.path.join(folder, "scorer.keras")
scorer = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
scorer.save(saved)
config = scorer.to_json()

batches = [np.full((2, 4), k, np.float32) for k in range(3)]
for batch in batches:
    model = tf.keras.models.load_model(saved)  # GL503
    print(model.predict(batch, verbose=0).shape)

checks = 0
while True:
    watcher = tf.keras.models.model_from_json(config)  # GL503
    checks += 1
    if checks == 3:
        break
print("checks:", checks)
