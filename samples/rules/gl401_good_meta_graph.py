"""A graph restored by `import_meta_graph`, with a checkpoint of all its variables.

The training graph is exported together with a checkpoint written by a Saver of every
variable (Adam's slots and beta powers included): the Saver `import_meta_graph` gives back
finds everything it restores.
"""

import os
import shutil
import tempfile

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
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            checkpoint = saver.save(sess, os.path.join(workdir, "train.ckpt"))

    with tf.Graph().as_default():
        restored = tf1.train.import_meta_graph(checkpoint + ".meta")
        with tf1.Session() as sess:
            restored.restore(sess, checkpoint)
            print(sess.run(tf1.global_variables()[0]).ravel())
finally:
    shutil.rmtree(workdir)
