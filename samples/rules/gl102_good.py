"""The update op is built once, before the training loop.

`accumulate` is created with the rest of the graph, the graph is finalized, and the loop only
runs it: no step adds anything to the graph.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

inputs = tf1.placeholder(tf.float32, [None, 2], name="inputs")
total = tf1.get_variable("total", [], initializer=tf1.zeros_initializer())
accumulate = tf1.assign_add(total, tf.reduce_sum(inputs))
init = tf1.global_variables_initializer()
tf1.get_default_graph().finalize()

with tf1.Session() as sess:
    sess.run(init)
    for step in range(5):
        batch = np.full((4, 2), step, dtype=np.float32)
        sess.run(accumulate, {inputs: batch})
    print("total:", sess.run(total))
