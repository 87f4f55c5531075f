"""A functional view over an existing model's tensors adds no model state.

`score()` runs for every chunk of the stream. When it is given a two-input training model it
wraps it as `Model(model.inputs[0], model.outputs[1])`: a view that reuses the trained layers,
with no new weights (and the scorer here has one input, so the branch never runs). Calling
`clear_session()` in that loop would destroy the caller's model.
"""

import numpy as np
import tensorflow as tf

inputs = tf.keras.Input(shape=(4,))
scorer = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))


def score(model, chunk):
    if len(model.inputs) > 1:
        model = tf.keras.Model(inputs=model.inputs[0], outputs=model.outputs[1])
    return float(np.asarray(model(chunk, training=False)).sum())


stream = [np.full((8, 4), k, np.float32) for k in range(4)]
total = 0.0
for chunk in stream:
    total += score(scorer, chunk)
print("total:", round(total, 3))
