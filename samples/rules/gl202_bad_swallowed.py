"""GL202 variable-exists, with the ValueError caught and swallowed.

`embedding()` tries to create the table and, when TensorFlow refuses because it already
exists, falls back to reusing it. The program runs, but the refusal still means the code asks
to create the same variable twice; the error is only hidden.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def embedding_table():
    try:
        return tf1.get_variable("table", [10, 3], initializer=tf1.constant_initializer(0.1))  # GL202
    except ValueError:
        with tf1.variable_scope(tf1.get_variable_scope(), reuse=True):
            return tf1.get_variable("table")


with tf1.variable_scope("embedding"):
    table = embedding_table()
    queries = tf1.placeholder(tf.int32, [None], name="queries")
    query_vectors = tf.nn.embedding_lookup(table, queries)
with tf1.variable_scope("embedding"):
    table = embedding_table()
    keys = tf1.placeholder(tf.int32, [None], name="keys")
    key_vectors = tf.nn.embedding_lookup(table, keys)
scores = tf.reduce_sum(query_vectors * key_vectors, axis=1)

with tf1.Session() as sess:
    sess.run(tf1.global_variables_initializer())
    print(sess.run(scores, {queries: np.array([1, 2]), keys: np.array([3, 4])}))
