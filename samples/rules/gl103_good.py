"""The scorer is built in a graph of its own with `graph.as_default()`.

`as_default()` really makes `graph` the default while the block runs, so the ops go into it
and the session is created for it.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

graph = tf.Graph()
with graph.as_default():
    scores = tf1.placeholder(tf.float32, [None], name="scores")
    ranked = tf.argsort(scores, direction="DESCENDING")

print("ops in the scorer graph:", len(graph.get_operations()))
with tf1.Session(graph=graph) as sess:
    print(sess.run(ranked, {scores: np.array([0.2, 0.9, 0.5], dtype=np.float32)}))
