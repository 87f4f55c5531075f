"""GL301 session-churn in a test: a fresh graph, model and session for every request.

`predict()` builds the model in a new graph, opens a session for it and feeds it the batch:
four requests, four graphs and four sessions, where one graph and one session, kept and
fed four times, would do.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def predict(batch):
    graph = tf.Graph()
    with graph.as_default():
        inputs = tf1.placeholder(tf.float32, [None, 2])
        scores = tf.reduce_sum(inputs * 0.5, axis=1)
        with tf1.Session(graph=graph) as sess:  # GL301
            return sess.run(scores, {inputs: batch})


def test_scores_follow_the_inputs():
    for value in (1.0, 2.0, 3.0, 4.0):
        assert predict(np.full((1, 2), value, np.float32))[0] == value
