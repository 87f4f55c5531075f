"""GL102 op-in-run-loop: the update op is built inside the training loop.

Every step calls `tf1.assign_add(...)` again, which adds new ops to the graph before running
them: the graph grows by a few nodes per step and each run has to prune a new subgraph.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

inputs = tf1.placeholder(tf.float32, [None, 2], name="inputs")
total = tf1.get_variable("total", [], initializer=tf1.zeros_initializer())
batch_sum = tf.reduce_sum(inputs)
init = tf1.global_variables_initializer()

with tf1.Session() as sess:
    sess.run(init)
    for step in range(5):
        batch = np.full((4, 2), step, dtype=np.float32)
        sess.run(tf1.assign_add(total, batch_sum), {inputs: batch})  # GL102
    print("total:", sess.run(total))
