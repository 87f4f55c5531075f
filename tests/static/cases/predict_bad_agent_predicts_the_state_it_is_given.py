import tensorflow as tf

tf1 = tf.compat.v1

import numpy as np
class Agent:
    def __init__(self):
        self.model = self._build_model()
        self.target = self._build_model()
    def _build_model(self):
        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        model.compile("adam", "mse")
        return model
    def act(self, state):
        return np.argmax(self.model.predict(state)[0])  # GL504
    def replay(self, batch):
        for state, target in batch:
            state = state.reshape(1, -1)
            self.target.predict(state)  # GL504
agent = Agent()
for episode in range(100):
    state = np.reshape(np.zeros(4), [1, 4])
    for step in range(200):
        action = agent.act(state)
        state = np.zeros(4)
