"""GL502 function-recreated: a `@tf.function` nested in a method that runs per batch.

`Scorer.score` defines its fast path as a nested `@tf.function`, so every call of `score`
makes a new function with an empty trace cache and traces it again; `evaluate` calls it
once per batch.
"""

import numpy as np
import tensorflow as tf


class Scorer:
    def __init__(self):
        self.w = tf.Variable(np.ones((3, 1), np.float32))

    def score(self, batch):
        @tf.function  # GL502
        def fast(x):
            return tf.matmul(x, self.w)

        return fast(batch)

    def evaluate(self, batches):
        return [float(tf.reduce_sum(self.score(b))) for b in batches]


scorer = Scorer()
batches = [np.full((2, 3), k, np.float32) for k in range(4)]
print(scorer.evaluate(batches))
