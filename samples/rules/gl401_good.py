"""The fix for a checkpoint mismatch: restore only what the checkpoint holds.

The serving graph builds the model without any optimizer, so it holds exactly the variables
the exported checkpoint stores, and the Saver is given that list explicitly.
"""

import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def build_model():
    inputs = tf1.placeholder(tf.float32, [None, 4], name="inputs")
    targets = tf1.placeholder(tf.float32, [None, 1], name="targets")
    with tf1.variable_scope("dense"):
        kernel = tf1.get_variable("kernel", [4, 1], initializer=tf1.constant_initializer(0.1))
        bias = tf1.get_variable("bias", [1], initializer=tf1.zeros_initializer())
    prediction = tf.matmul(inputs, kernel) + bias
    loss = tf.reduce_mean(tf.square(prediction - targets))
    return inputs, targets, prediction, loss


ckpt_dir = tempfile.mkdtemp()
batch = np.ones((2, 4), dtype=np.float32)
try:
    export_graph = tf.Graph()
    with export_graph.as_default():
        build_model()
        exporter = tf1.train.Saver(var_list=tf1.trainable_variables())
        init = tf1.global_variables_initializer()
    with tf1.Session(graph=export_graph) as sess:
        sess.run(init)
        path = exporter.save(sess, os.path.join(ckpt_dir, "model.ckpt"))

    serve_graph = tf.Graph()
    with serve_graph.as_default():
        inputs, targets, prediction, loss = build_model()
        saver = tf1.train.Saver(var_list=tf1.trainable_variables())
    serve_graph.finalize()
    with tf1.Session(graph=serve_graph) as sess:
        saver.restore(sess, path)
        print(sess.run(prediction, {inputs: batch}).ravel())
finally:
    shutil.rmtree(ckpt_dir)
