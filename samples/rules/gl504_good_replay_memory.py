"""Good twin: the replay loop scores the sampled transitions in one batched call.

The same learner stacks the minibatch's observations with `np.vstack` and calls `predict`
once for all of them, and once for their successors. A second memory stores whole batches
of observations (a few environments stepped together): each of its elements is already a
batch, so one `predict` per element is one call per batch.
"""

import random
from collections import deque

import numpy as np
import keras


class Learner:
    def __init__(self, n_obs, n_moves):
        self.buffer = deque(maxlen=500)
        self.batches = []
        self.net = keras.Sequential([keras.Input(shape=(n_obs,)), keras.layers.Dense(n_moves)])

    def store(self, obs, move, gain, after, over):
        self.buffer.append((obs, move, gain, after, over))

    def store_batch(self, many_obs, many_after):
        self.batches.append((many_obs, many_after))

    def learn(self, size):
        picked = random.sample(self.buffer, size)
        obs = np.vstack([p[0] for p in picked])
        after = np.vstack([p[3] for p in picked])
        goals = self.net.predict(obs, verbose=0)
        best = self.net.predict(after, verbose=0).max(axis=1)
        for i, (_, move, gain, _, over) in enumerate(picked):
            goals[i, move] = gain + (0.0 if over else 0.9 * best[i])
        return obs, goals

    def learn_batches(self):
        scores = []
        for many_obs, many_after in self.batches:
            scores.append(self.net.predict(many_obs, verbose=0).max() - self.net.predict(many_after, verbose=0).max())
        return scores


learner = Learner(3, 2)
grid = np.linspace(-1.0, 1.0, 75, dtype=np.float32).reshape(25, 3)
obs = np.reshape(grid[0], [1, 3])
for t in range(1, 25):
    after = np.reshape(grid[t], [1, 3])
    learner.store(obs, t % 2, 1.0, after, t == 24)
    obs = after
for t in range(0, 8, 4):
    learner.store_batch(grid[t:t + 2], grid[t + 2:t + 4])
rows, goals = learner.learn(12)
print(rows.shape, goals.shape, len(learner.learn_batches()))
