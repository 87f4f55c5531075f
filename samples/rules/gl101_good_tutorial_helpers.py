"""The tutorial's variable helpers, called from several lines to build one model.

`weight_variable()` and `bias_variable()` are called once per layer while the model is built;
the layers meet only through later ops (`tf.matmul(hidden, w2)`). That is one model with
several layers, built once, then trained in a loop that only runs it.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def weight_variable(shape):
    return tf.Variable(tf1.truncated_normal(shape, stddev=0.1, seed=1))


def bias_variable(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


x = tf1.placeholder(tf.float32, [None, 4])
y = tf1.placeholder(tf.float32, [None, 1])
w1 = weight_variable([4, 8])
b1 = bias_variable([8])
hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
w2 = weight_variable([8, 1])
b2 = bias_variable([1])
output = tf.matmul(hidden, w2) + b2
loss = tf.reduce_mean(tf.square(output - y))
train = tf1.train.GradientDescentOptimizer(0.01).minimize(loss)

with tf1.Session() as sess:
    sess.run(tf1.global_variables_initializer())
    for step in range(5):
        sess.run(train, {x: np.ones((2, 4)), y: np.ones((2, 1))})
    print(sess.run(loss, {x: np.ones((2, 4)), y: np.ones((2, 1))}))
