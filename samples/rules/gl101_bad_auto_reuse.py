"""GL101 graph-rebuilt although the variables are shared (AUTO_REUSE).

`Classifier.__call__()` opens its variable scope with `AUTO_REUSE`, so the second call no
longer dies with "already exists": it silently shares the weights. But it still builds a new
placeholder, matmul and softmax, and runs them, on every call: the graph grows per request.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class Classifier:
    def __init__(self):
        self.sess = tf1.Session()

    def __call__(self, x):
        inputs = tf1.placeholder(tf.float32, [None, 3], name="inputs")  # GL101
        with tf1.variable_scope("classifier", reuse=tf1.AUTO_REUSE):
            w = tf1.get_variable("w", [3, 2], initializer=tf1.constant_initializer(0.1))
        probabilities = tf.nn.softmax(tf.matmul(inputs, w))
        self.sess.run(tf1.variables_initializer([w]))
        return self.sess.run(probabilities, {inputs: x})

    def close(self):
        self.sess.close()


classify = Classifier()
batch = np.ones((2, 3), dtype=np.float32)
print(classify(batch))
print(classify(2 * batch))
classify.close()
