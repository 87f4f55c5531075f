"""GL504 predict-in-loop: one stored row per `predict` in the replay loop of a DQN learner.

The learner stores each transition as it comes, its observations reshaped to one row by the
episode loop. Replay then scores every sampled transition on its own: one `predict` per
transition (and one more for its successor) instead of one batched call over the minibatch.
"""

import random
from collections import deque

import numpy as np
import keras


class Learner:
    def __init__(self, n_obs, n_moves):
        self.n_moves = n_moves
        self.buffer = deque(maxlen=500)
        self.net = keras.Sequential([keras.Input(shape=(n_obs,)), keras.layers.Dense(n_moves)])

    def store(self, obs, move, gain, after, over):
        self.buffer.append((obs, move, gain, after, over))

    def learn(self, size):
        picked = random.sample(self.buffer, size)
        rows, goals = [], []
        for obs, move, gain, after, over in picked:
            goal = self.net.predict(obs, verbose=0)  # GL504
            best = 0.0 if over else float(self.net.predict(after, verbose=0).max())  # GL504
            goal[0, move] = gain + 0.9 * best
            rows.append(obs[0])
            goals.append(goal[0])
        return np.array(rows), np.array(goals)


learner = Learner(3, 2)
grid = np.linspace(-1.0, 1.0, 75, dtype=np.float32).reshape(25, 3)
obs = np.reshape(grid[0], [1, 3])
for t in range(1, 25):
    after = np.reshape(grid[t], [1, 3])
    learner.store(obs, t % 2, 1.0, after, t == 24)
    obs = after
rows, goals = learner.learn(12)
print(rows.shape, goals.shape)
