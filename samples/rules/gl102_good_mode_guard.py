"""The per-epoch ops are built once: a real lazy guard, and the rest before the loop.

`if self.set_rate is None:` sets `self.set_rate` in its branch, so the assign is built on the
first epoch only; the Saver and the epoch counter's assign are built before the loop and fed a
placeholder. The mode switch around the loop is harmless now: the loop only runs ops.
"""

import os
import tempfile

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

EVAL_ONLY = False


class Trainer:
    def __init__(self):
        self.inputs = tf1.placeholder(tf.float32, [None, 2], name="inputs")
        self.weights = tf1.get_variable("weights", [2, 1], initializer=tf1.zeros_initializer())
        self.rate = tf1.get_variable("rate", [], initializer=tf1.constant_initializer(0.1), trainable=False)
        self.new_rate = tf1.placeholder(tf.float32, [], name="new_rate")
        self.set_rate = None
        loss = tf.reduce_mean(tf.square(tf.matmul(self.inputs, self.weights) - 1.0))
        self.train = tf1.train.GradientDescentOptimizer(self.rate).minimize(loss)
        self.saver = tf1.train.Saver()

    def fit(self, sess, checkpoint):
        for epoch in range(4):
            if self.set_rate is None:
                self.set_rate = tf1.assign(self.rate, self.new_rate)
            sess.run(self.set_rate, {self.new_rate: 0.1 * 0.5**epoch})
            sess.run(self.train, {self.inputs: np.ones((4, 2), np.float32)})
            self.saver.save(sess, checkpoint)


trainer = Trainer()
checkpoint = os.path.join(tempfile.mkdtemp(), "model.ckpt")
with tf1.Session() as sess:
    sess.run(tf1.global_variables_initializer())
    if not EVAL_ONLY:
        trainer.fit(sess, checkpoint)
    print("rate:", sess.run(trainer.rate))
