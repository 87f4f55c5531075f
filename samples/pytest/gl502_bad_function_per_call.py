"""GL502 function-recreated in a test: a method that wraps its step in a new function per call.

`Scorer.score()` makes a new `tf.function` every time it is called, so each of the test's
three calls on the same scorer traces the step again (a reset trainer makes two: the
limit).
"""

import tensorflow as tf


class Scorer:
    def __init__(self):
        self.weight = tf.Variable(2.0)

    def step(self, x):
        return tf.reduce_sum(x * self.weight)

    def score(self, x):
        return float(tf.function(self.step)(x))  # GL502


def test_scores_of_three_batches():
    scorer = Scorer()
    assert [scorer.score(tf.fill([2], float(k))) for k in range(3)] == [0.0, 4.0, 8.0]
