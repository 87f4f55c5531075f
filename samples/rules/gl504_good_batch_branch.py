"""A `predict` wrapper whose `predict` branch only ever gets a large batch.

`Brain.predict(rows, target=True)` is reached only by `replay()`, with 64 rows at a time; the
one-row callers go through `predict_one()`, which leaves `target` False and reaches the other
branch, a direct call of the model.
"""

import numpy as np
import keras


class Brain:
    def __init__(self, n_inputs, n_actions):
        self.online = keras.Sequential([keras.Input(shape=(n_inputs,)), keras.layers.Dense(n_actions)])
        self.target = keras.Sequential([keras.Input(shape=(n_inputs,)), keras.layers.Dense(n_actions)])

    def predict(self, rows, target=False):
        if target:
            return self.target.predict(rows, verbose=0)
        return np.asarray(self.online(rows, training=False))

    def predict_one(self, state, target=False):
        return self.predict(state.reshape(1, -1), target=target).flatten()


class Agent:
    def __init__(self):
        self.brain = Brain(4, 2)

    def act(self, state):
        return int(np.argmax(self.brain.predict_one(state)))

    def replay(self, memory):
        return self.brain.predict(memory, target=True).max(axis=1)


agent = Agent()
memory = np.linspace(0.0, 1.0, 64 * 4, dtype=np.float32).reshape(64, 4)
actions, values = [], []
for state in memory[:8]:
    actions.append(agent.act(state))
    values.append(float(agent.replay(memory).mean()))
print(actions, np.round(values, 3))
