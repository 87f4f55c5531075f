import tensorflow as tf

tf1 = tf.compat.v1

import sys
import numpy as np
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
loaded = tf.keras.models.load_model(sys.argv[1])
frames = np.zeros((100, 4))
for frame in frames:
    model.predict(frame[None], verbose=0)  # GL504
    loaded.predict(np.array([frame]))  # GL504
    x = np.reshape(frame, [1, 4])
    model.predict(x)  # GL504
while True:
    model.predict(np.expand_dims(frames[0], axis=0))  # GL504
    break
class Agent:
    def __init__(self):
        self.model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    def act(self, state):
        return self.model.predict(state.reshape(1, -1))  # GL504
agent = Agent()
for step in range(1000):
    agent.act(frames[0])
for i in range(6):
    model.predict(frames[i][np.newaxis, :])  # GL504
