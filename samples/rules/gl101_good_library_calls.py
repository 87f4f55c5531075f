"""A library function called a few times, from different lines, with different inputs.

`Scale.forward()` builds a few ops for whatever tensor it is given: a test calls it for one
input, evaluates, calls it for another, evaluates, and so on. Calling an op-building function
several times is how graph-mode TensorFlow is used; nothing is rebuilt per request and the
graph does not keep growing.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class Scale:
    def __init__(self, factor):
        self.factor = factor

    def forward(self, x):
        return tf.exp(tf.math.log(self.factor)) * x

    def inverse(self, y):
        return y / self.factor


scale = Scale(2.0)
with tf1.Session() as sess:
    print(sess.run(scale.forward(tf.constant([1.0, 2.0]))))
    print(sess.run(scale.forward(tf.constant([[3.0], [4.0]]))))
    print(sess.run(scale.inverse(scale.forward(tf.constant(5.0)))))
    print(sess.run(scale.forward(tf.constant(np.float32(6.0)))))
