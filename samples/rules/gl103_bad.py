"""GL103 graph-not-default: `with tf.Graph():` instead of `with tf.Graph().as_default():`.

The block was meant to build the scorer in a graph of its own, but entering the graph object
itself does not make it the default: the ops land in the global default graph and `graph`
stays empty.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

graph = tf.Graph()
with graph:  # GL103
    scores = tf1.placeholder(tf.float32, [None], name="scores")
    ranked = tf.argsort(scores, direction="DESCENDING")

print("ops in the scorer graph:", len(graph.get_operations()))
with tf1.Session() as sess:  # runs the default graph, where the ops really went
    print(sess.run(ranked, {scores: np.array([0.2, 0.9, 0.5], dtype=np.float32)}))
