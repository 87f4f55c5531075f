"""The forecast story, part 2: the "reuse fix".

Part 1 died with "Variable weight_def/weights already exists, disallowed". The user catches
the ValueError and re-enters the scope with reuse=True, so a second call shares the weights
instead of failing. forecast() is also the training path: given targets, it builds an Adam
training op and trains. A colleague then hands over pretrained weights, exported without
optimizer state, and forecasting from them fails with NotFoundError ("Key
weight_def/weights/Adam_1 not found in checkpoint" or "Key beta1_power ..."): the one
default graph still holds the first call's copy of the model, Adam's slots and beta powers
included, and a plain Saver() wants them all. The duplicated graph is still there, too.
Expected: GL101 (each call builds the model again, sharing its variables), GL202 (the refused,
swallowed get_variable) and GL401 (at the restore, although the restore raises), with the
minimize() line as the creation site of the missing variables.
"""

import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def export_pretrained(directory, n_features):
    """The colleague's export: the model's weights only, no optimizer state."""
    graph = tf.Graph()
    with graph.as_default():
        with tf1.variable_scope("weight_def"):
            tf1.get_variable("weights", [n_features, 1], initializer=tf1.constant_initializer(0.25))
            tf1.get_variable("bias", [1], initializer=tf1.zeros_initializer())
        saver = tf1.train.Saver(var_list=tf1.trainable_variables())
        init = tf1.global_variables_initializer()
    with tf1.Session(graph=graph) as sess:
        sess.run(init)
        return saver.save(sess, os.path.join(directory, "pretrained.ckpt"))


class Forecaster:
    def __init__(self, n_features):
        self.n_features = n_features

    def forecast(self, x, y=None, checkpoint=None):
        inputs = tf1.placeholder(tf.float32, [None, self.n_features], name="inputs")  # GL101
        targets = tf1.placeholder(tf.float32, [None, 1], name="targets")
        try:
            with tf1.variable_scope("weight_def"):
                weights = tf1.get_variable("weights", [self.n_features, 1])  # GL202
                bias = tf1.get_variable("bias", [1], initializer=tf1.zeros_initializer())
        except ValueError:  # "already exists": share the existing variables instead
            with tf1.variable_scope("weight_def", reuse=True):
                weights = tf1.get_variable("weights", [self.n_features, 1])
                bias = tf1.get_variable("bias", [1])
        prediction = tf.matmul(inputs, weights) + bias
        if y is not None:  # training shares the code path
            loss = tf.reduce_mean(tf.square(prediction - targets))
            train_op = tf1.train.AdamOptimizer(0.05).minimize(loss)
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            if checkpoint:
                saver.restore(sess, checkpoint)  # GL401
            else:
                sess.run(tf1.global_variables_initializer())
            if y is not None:
                for _ in range(20):
                    sess.run(train_op, {inputs: x, targets: y})
            return sess.run(prediction, {inputs: x})


workdir = tempfile.mkdtemp()
try:
    x = np.ones((2, 4), dtype=np.float32)
    y = np.full((2, 1), 2.0, dtype=np.float32)
    model = Forecaster(4)
    print("trained from scratch:", model.forecast(x, y).ravel())
    pretrained = export_pretrained(workdir, 4)
    print("pretrained:", model.forecast(x, checkpoint=pretrained).ravel())
finally:
    shutil.rmtree(workdir)
