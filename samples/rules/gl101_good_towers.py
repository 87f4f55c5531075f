"""Data-parallel towers that share their variables.

`tower()` is built once per input shard, but all towers share one set of variables
(`AUTO_REUSE`) and their outputs are combined with `add_n`: the copies are one model's parallel
branches, not a model rebuilt by mistake.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def tower(x):
    with tf1.variable_scope("shared", reuse=tf1.AUTO_REUSE):
        w = tf1.get_variable("kernel", [4, 1], initializer=tf1.constant_initializer(0.5))
        b = tf1.get_variable("bias", [1], initializer=tf1.zeros_initializer())
    return tf.reduce_sum(tf.matmul(x, w) + b)


inputs = tf1.placeholder(tf.float32, [None, 4], name="inputs")
shards = tf.split(inputs, 4)
losses = []
for i, shard in enumerate(shards):
    with tf1.name_scope(f"tower_{i}"):
        losses.append(tower(shard))
total = tf.add_n(losses)

init = tf1.global_variables_initializer()
with tf1.Session() as sess:
    sess.run(init)
    print(sess.run(total, {inputs: np.ones((8, 4), dtype=np.float32)}))
