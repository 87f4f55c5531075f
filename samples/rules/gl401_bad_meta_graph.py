"""GL401 checkpoint-mismatch with a graph restored by `import_meta_graph`.

The exported training graph holds Adam's slots and beta powers; the colleague's checkpoint
holds only the weights. `import_meta_graph` gives back a Saver for every variable of that
graph, so restoring the weights-only checkpoint with it fails.
"""

import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

workdir = tempfile.mkdtemp()
try:
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, 2], name="x")
        w = tf1.get_variable("w", [2, 1], initializer=tf1.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
        tf1.train.AdamOptimizer(0.1).minimize(loss)
        tf1.train.export_meta_graph(os.path.join(workdir, "train.meta"))
        weights_only = tf1.train.Saver(var_list=[w])
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            checkpoint = weights_only.save(sess, os.path.join(workdir, "weights.ckpt"))

    with tf.Graph().as_default():
        saver = tf1.train.import_meta_graph(os.path.join(workdir, "train.meta"))
        with tf1.Session() as sess:
            try:
                saver.restore(sess, checkpoint)  # GL401
            except tf.errors.NotFoundError as exc:
                print("restore failed:", type(exc).__name__)
            print(np.zeros(1))
finally:
    shutil.rmtree(workdir)
