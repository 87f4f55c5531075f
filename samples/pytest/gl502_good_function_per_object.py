"""Functions a library makes per object: four trainers, four functions, none made again.

`Trainer.make_step_function()` wraps its step in a `tf.function` the first time it is asked
and keeps it, as a Keras model's `make_train_function()` does; `reset()` drops it, as
`compile()` does. The first test runs four trainers once each (four functions made at one
line, one per trainer); the second resets one trainer once and runs it again.
"""

import tensorflow as tf


class Trainer:
    def __init__(self, scale):
        self.scale = tf.Variable(scale)
        self.step_function = None

    def make_step_function(self):
        if self.step_function is None:

            def step(x):
                return tf.reduce_sum(x * self.scale)

            self.step_function = tf.function(step)
        return self.step_function

    def reset(self):
        self.step_function = None

    def run(self, x):
        return float(self.make_step_function()(x))


def test_four_trainers_run_once_each():
    trainers = [Trainer(float(k)) for k in range(1, 5)]
    assert [t.run(tf.ones([2])) for t in trainers] == [2.0, 4.0, 6.0, 8.0]


def test_a_reset_trainer_makes_its_function_again():
    trainer = Trainer(1.0)
    assert trainer.run(tf.ones([2])) == 2.0
    trainer.reset()
    assert trainer.run(tf.ones([3])) == 3.0
