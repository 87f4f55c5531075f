import tensorflow as tf

tf1 = tf.compat.v1

import sys
def build_graph(path):
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(path)
    return graph
for path in sys.argv:
    graph = build_graph(path)
    with tf1.Session(graph=graph) as sess:
        print(sess.graph)
shared = tf.Graph()
for path in sys.argv:
    with tf1.Session(graph=shared) as sess:  # GL301
        print(sess.graph)
