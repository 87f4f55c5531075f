"""GL101 graph-rebuilt: a per-request predict() that builds one op line per call.

`Scorer.predict()` wraps each request in a constant and multiplies it by the weights, all on
one line, then runs it: every request adds two more ops to the default graph, so a server
that answers requests grows its graph without end.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class Scorer:
    def __init__(self):
        self.weights = tf.constant(np.full((3, 1), 0.5, dtype=np.float32))
        self.sess = tf1.Session()

    def predict(self, x):
        return self.sess.run(tf.matmul(tf.constant(x), self.weights))  # GL101

    def close(self):
        self.sess.close()


scorer = Scorer()
for request in range(4):
    print(request, scorer.predict(np.full((1, 3), request, dtype=np.float32)).item())
scorer.close()
