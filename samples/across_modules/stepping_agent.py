"""The user's own agent module, imported by the `gl504_*_across_modules.py` samples beside it.

`Agent.choose_action` makes a batch of one observation and calls `predict` on it: run once per
step by the loop of `gl504_bad_across_modules.py`, that is a data pipeline and callbacks for
every single row. `FastAgent` calls the model directly (the fix). Nothing here runs on import.
"""

import numpy as np
import tensorflow as tf


class Agent:
    def __init__(self, n_actions):
        self.q_eval = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(n_actions)])

    def choose_action(self, observation):
        state = observation[np.newaxis, :]
        actions = self.q_eval.predict(state, verbose=0)  # GL504
        return int(np.argmax(actions))


class FastAgent(Agent):
    def choose_action(self, observation):
        state = observation[np.newaxis, :]
        return int(np.argmax(self.q_eval(state, training=False)))
