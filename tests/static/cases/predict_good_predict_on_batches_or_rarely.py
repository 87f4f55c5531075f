import tensorflow as tf

tf1 = tf.compat.v1

import sys
import numpy as np
from sklearn.linear_model import LogisticRegression
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
clf = LogisticRegression()
frames = np.zeros((100, 4))
for batch in np.split(frames, 10):
    model.predict(batch)
    clf.predict(batch[0][None])
    model(batch[0][None], training=False)
for i in range(5):
    model.predict(frames[i][None])
x = frames[:1]
for i in range(100):
    x = frames[i:i + 32]
    model.predict(x)
model.predict(frames[0][None])
graph = tf1.get_default_graph()
for frame in frames:
    with graph.as_default():
        model.predict(frame[None])
