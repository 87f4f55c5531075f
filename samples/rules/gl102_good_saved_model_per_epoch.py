"""A SavedModel exported after every epoch with the one saver built before the loop.

The same export as `gl102_bad_saved_model_per_epoch.py`, made with a `SavedModelBuilder` per
epoch that is given the saver built with the rest of the graph (`saver=saver`): the builder
makes no saver of its own, and no epoch adds anything to the graph.
"""

import os
import tempfile

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

inputs = tf1.placeholder(tf.float32, [None, 2], name="inputs")
weights = tf1.get_variable("weights", [2, 1])
outputs = tf.matmul(inputs, weights)
loss = tf.reduce_mean(tf.square(outputs - 1.0))
train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss)
saver = tf1.train.Saver(sharded=True)

with tf1.Session() as sess, tempfile.TemporaryDirectory() as folder:
    sess.run(tf1.global_variables_initializer())
    for epoch in range(4):
        sess.run(train, {inputs: np.ones((8, 2), dtype=np.float32)})
        builder = tf1.saved_model.Builder(os.path.join(folder, f"epoch{epoch}"))
        builder.add_meta_graph_and_variables(sess, ["serve"], saver=saver)
        builder.save()
    print("exports:", len(os.listdir(folder)))
