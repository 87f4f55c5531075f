"""GL102 op-in-run-loop: ops built per epoch under guards that look like first-time guards.

`if resume_from is None:` reads like "build it once", but nothing ever sets `resume_from`: the
branch runs at every epoch and builds a new assign op each time. The whole training loop sits
under `if not EVAL_ONLY:` — a mode switch outside the loop, which does not make what the loop
builds happen once: a new `Saver` and a new assign per epoch.
"""

import os
import tempfile

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

EVAL_ONLY = False
resume_from = None

inputs = tf1.placeholder(tf.float32, [None, 2], name="inputs")
weights = tf1.get_variable("weights", [2, 1], initializer=tf1.zeros_initializer())
rate = tf1.get_variable("rate", [], initializer=tf1.constant_initializer(0.1), trainable=False)
epoch_seen = tf1.get_variable("epoch_seen", [], dtype=tf.int32, initializer=tf1.zeros_initializer(), trainable=False)
loss = tf.reduce_mean(tf.square(tf.matmul(inputs, weights) - 1.0))
train = tf1.train.GradientDescentOptimizer(rate).minimize(loss)
init = tf1.global_variables_initializer()
checkpoint = os.path.join(tempfile.mkdtemp(), "model.ckpt")

with tf1.Session() as sess:
    sess.run(init)
    if not EVAL_ONLY:
        for epoch in range(4):
            if resume_from is None:
                sess.run(epoch_seen.assign(epoch))  # GL102
            sess.run(tf1.assign(rate, 0.1 * 0.5**epoch))  # GL102
            sess.run(train, {inputs: np.ones((4, 2), np.float32)})
            tf1.train.Saver().save(sess, checkpoint)  # GL102
    print("epochs seen:", sess.run(epoch_seen))
