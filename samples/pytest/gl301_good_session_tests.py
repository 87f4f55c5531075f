"""Tests about sessions and isolated graphs: each session is its graph's one session.

The first test checks that a session made after a graph reset belongs to the new default
graph, three times, and never runs it. The second simulates three clients, each with a
fresh graph holding its own values and one session that evaluates it once. No graph gets a
second session and no model is rebuilt to be fed again.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def test_a_session_after_a_reset_uses_the_new_graph():
    for _ in range(3):
        tf1.reset_default_graph()
        sess = tf1.Session()
        assert sess.graph is tf1.get_default_graph()
        sess.close()


def test_each_client_encodes_in_its_own_graph():
    encoded = []
    for values in (np.ones(3), np.full(3, 2.0), np.full(3, 3.0)):
        graph = tf.Graph()
        with graph.as_default():
            doubled = tf.constant(values, tf.float32) * 2.0
            with tf1.Session(graph=graph) as sess:
                encoded.append(sess.run(doubled))
    assert [float(e.sum()) for e in encoded] == [6.0, 12.0, 18.0]
