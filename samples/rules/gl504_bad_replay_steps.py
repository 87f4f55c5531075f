"""GL504 predict-in-loop: a DQN learner scoring each sampled environment step on its own.

The learner keeps steps `(state, action, reward, next_state, done)` as they come; replay then
calls `predict` once per sampled step (and once more for its successor) and keeps row 0 of each
answer: one call per step instead of one batched call over the minibatch.
"""

import random
from collections import deque

import numpy as np
import keras


class Learner:
    def __init__(self, n_obs, n_moves):
        self.steps = deque(maxlen=500)
        self.net = keras.Sequential([keras.Input(shape=(n_obs,)), keras.layers.Dense(n_moves)])

    def keep(self, state, move, gain, next_state, over):
        self.steps.append((state, move, gain, next_state, over))

    def replay(self, size):
        sample = random.sample(self.steps, min(size, len(self.steps)))
        goals = []
        for i in range(len(sample)):
            state, move, gain, next_state, over = sample[i]
            goal = self.net.predict(state, verbose=0)[0]  # GL504
            if not over:
                gain += 0.9 * float(np.amax(self.net.predict(next_state, verbose=0)[0]))  # GL504
            goal[move] = gain
            goals.append(goal)
        return np.array(goals)


learner = Learner(3, 2)
rows = np.linspace(-1.0, 1.0, 75, dtype=np.float32).reshape(25, 1, 3)
for t, (state, next_state) in enumerate(zip(rows[:-1], rows[1:])):
    learner.keep(state, t % 2, 1.0, next_state, t == 23)
print(learner.replay(12).shape)
