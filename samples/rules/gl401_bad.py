"""GL401 checkpoint-mismatch: restoring into a graph that also holds the optimizer.

The model is trained and exported without its optimizer state (a Saver over the model's
weights only). The serving code then rebuilds the model *together with* its training op, so
the graph gains Adam's slot variables (`dense/kernel/Adam`, `beta1_power`, ...), and a plain
`Saver()` wants to restore them too: the restore fails with `NotFoundError: Key ...Adam not
found in checkpoint`.
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
        train_op = tf1.train.AdamOptimizer(0.01).minimize(loss)
        saver = tf1.train.Saver()
    with tf1.Session(graph=serve_graph) as sess:
        saver.restore(sess, path)  # GL401
        print(sess.run(prediction, {inputs: batch}).ravel())
finally:
    shutil.rmtree(ckpt_dir)
