"""Several models in one test, each trained once: three models, not one model rebuilt.

`TinyModel` builds its weights when it is made and its training ops in `fit()` (a target
placeholder and the loss, made by a helper `test_on_batch()` shares, and the update), as a TF1 Keras model does in its first `fit()`. The
first test trains three models of different widths once each; the second trains one
model, then evaluates it. Each `fit()` builds ops for its own model's weights.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
X = np.ones((4, 3), np.float32)
Y = np.ones((4, 1), np.float32)


class TinyModel:
    def __init__(self, sess, units):
        self.sess = sess
        self.inputs = tf1.placeholder(tf.float32, [None, 3])
        self.hidden = tf1.Variable(np.full((3, units), 0.1, np.float32))
        self.out = tf1.Variable(np.full((units, 1), 0.1, np.float32))
        self.outputs = tf.matmul(tf.matmul(self.inputs, self.hidden), self.out)
        sess.run([self.hidden.initializer, self.out.initializer])

    def _loss(self, squared):
        targets = tf1.placeholder(tf.float32, [None, 1])
        error = self.outputs - targets
        return targets, tf.reduce_mean(tf.square(error) if squared else tf.abs(error))

    def fit(self, x, y):
        targets, loss = self._loss(squared=True)
        step = tf1.train.GradientDescentOptimizer(0.01).minimize(loss)
        return self.sess.run([loss, step], {self.inputs: x, targets: y})[0]

    def test_on_batch(self, x, y):
        targets, loss = self._loss(squared=False)
        return self.sess.run(loss, {self.inputs: x, targets: y})


def test_three_widths_train():
    with tf.Graph().as_default(), tf1.Session() as sess:
        small = TinyModel(sess, 1)
        small.fit(X, Y)
        medium = TinyModel(sess, 2)
        medium.fit(X, Y)
        large = TinyModel(sess, 4)
        assert large.fit(X, Y) >= 0


def test_train_then_test():
    with tf.Graph().as_default(), tf1.Session() as sess:
        model = TinyModel(sess, 2)
        model.fit(X, Y)
        assert model.test_on_batch(X, Y) >= 0
