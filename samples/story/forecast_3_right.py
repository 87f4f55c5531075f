"""The forecast story, part 3: the right design.

The model is built once, in __init__, into the Forecaster's own tf.Graph() (under
.as_default()), and its tensors are kept. The optimizer exists only in the training graph;
the forecasting graph holds just the model, and its Saver is given that variable list
explicitly, so the weights-only checkpoint restores cleanly. One session per graph, opened
once and closed once; graph.finalize() makes any accidental rebuild raise immediately.
"""

import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def build_model(n_features):
    inputs = tf1.placeholder(tf.float32, [None, n_features], name="inputs")
    with tf1.variable_scope("weight_def"):
        weights = tf1.get_variable("weights", [n_features, 1], initializer=tf1.zeros_initializer())
        bias = tf1.get_variable("bias", [1], initializer=tf1.zeros_initializer())
    prediction = tf.matmul(inputs, weights) + bias
    return inputs, prediction, [weights, bias]


def train(x, y, directory):
    """Training has its own graph: the model plus Adam; only the model's weights are saved."""
    graph = tf.Graph()
    with graph.as_default():
        inputs, prediction, model_vars = build_model(x.shape[1])
        targets = tf1.placeholder(tf.float32, [None, 1], name="targets")
        loss = tf.reduce_mean(tf.square(prediction - targets))
        train_op = tf1.train.AdamOptimizer(0.05).minimize(loss)
        saver = tf1.train.Saver(var_list=model_vars)
        init = tf1.global_variables_initializer()
    graph.finalize()
    with tf1.Session(graph=graph) as sess:
        sess.run(init)
        for _ in range(20):
            sess.run(train_op, {inputs: x, targets: y})
        return saver.save(sess, os.path.join(directory, "model.ckpt"))


class Forecaster:
    def __init__(self, n_features, checkpoint):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.inputs, self.prediction, model_vars = build_model(n_features)
            saver = tf1.train.Saver(var_list=model_vars)
        self.graph.finalize()
        self.sess = tf1.Session(graph=self.graph)
        saver.restore(self.sess, checkpoint)

    def forecast(self, x):
        return self.sess.run(self.prediction, {self.inputs: x})

    def close(self):
        self.sess.close()


workdir = tempfile.mkdtemp()
try:
    x = np.ones((2, 4), dtype=np.float32)
    y = np.full((2, 1), 2.0, dtype=np.float32)
    checkpoint = train(x, y, workdir)
    model = Forecaster(4, checkpoint)
    print(model.forecast(x).ravel())
    print(model.forecast(x).ravel())
    model.close()
finally:
    shutil.rmtree(workdir)
