"""GL504 predict-in-loop: the Keras model reached through other objects, one row per step.

The agent keeps its networks in a `Brain`. At every step it scores one state through
`self.brain.online.predict(...)`, and through the brain's own `predict` wrapper, with a
state reshaped to one row: each call sets up a data pipeline and callbacks for that row.
"""

import numpy as np
import keras


class Brain:
    def __init__(self, n_inputs, n_actions):
        self.online = keras.Sequential([keras.Input(shape=(n_inputs,)), keras.layers.Dense(n_actions)])
        self.target = keras.Sequential([keras.Input(shape=(n_inputs,)), keras.layers.Dense(n_actions)])

    def predict(self, rows):
        return self.target.predict(rows, verbose=0)  # GL504


class Agent:
    def __init__(self):
        self.brain = Brain(4, 2)

    def act(self, state):
        q = self.brain.online.predict(np.expand_dims(state, 0), verbose=0)  # GL504
        return int(np.argmax(q))

    def target_value(self, state):
        return float(self.brain.predict(state.reshape(1, -1)).max())


agent = Agent()
states = np.linspace(0.0, 1.0, 32, dtype=np.float32).reshape(8, 4)
actions, values = [], []
for state in states:
    actions.append(agent.act(state))
    values.append(agent.target_value(state))
print(actions, np.round(values, 3))
