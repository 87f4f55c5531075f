"""GL101 graph-rebuilt in a test: one model whose `fit()` builds its training ops on every call.

`TinyModel.fit()` makes a target placeholder, the loss and the update each time it is
called; the test fits the same model three times (and then tests it once), so the graph holds three copies of the
training step for the same weights, where one built in `__init__` and run three times would do.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
X = np.ones((4, 3), np.float32)
Y = np.ones((4, 1), np.float32)


class TinyModel:
    def __init__(self, sess):
        self.sess = sess
        self.inputs = tf1.placeholder(tf.float32, [None, 3])
        self.weights = tf1.Variable(np.full((3, 1), 0.1, np.float32))
        self.outputs = tf.matmul(self.inputs, self.weights)
        sess.run(self.weights.initializer)

    def _loss(self, squared):
        targets = tf1.placeholder(tf.float32, [None, 1])
        error = self.outputs - targets
        return targets, tf.reduce_mean(tf.square(error) if squared else tf.abs(error))

    def fit(self, x, y):
        targets, loss = self._loss(squared=True)  # GL101
        step = tf1.train.GradientDescentOptimizer(0.01).minimize(loss)
        return self.sess.run([loss, step], {self.inputs: x, targets: y})[0]

    def test_on_batch(self, x, y):
        targets, loss = self._loss(squared=False)
        return self.sess.run(loss, {self.inputs: x, targets: y})


def test_loss_goes_down_over_three_fits():
    with tf.Graph().as_default(), tf1.Session() as sess:
        model = TinyModel(sess)
        first = model.fit(X, Y)
        model.fit(X, Y)
        assert model.fit(X, Y) < first
        assert model.test_on_batch(X, Y) >= 0
