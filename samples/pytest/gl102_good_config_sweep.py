"""Graph-mode tests that loop over configurations: each case builds and evaluates once.

The first test runs a convolution for every input size, kernel size and stride on inputs of
that size; the second applies a dense layer for each of a list of settings to one shared
input. Each pass builds another computation (other shapes, other ops), evaluates it once,
and the graph stops growing when the cases run out: a test's cases, not a training loop.
"""

import itertools

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def test_convolution_output_sizes():
    with tf.Graph().as_default(), tf1.Session() as sess:
        for size, kernel, stride in itertools.product((5, 6), (1, 3), (1, 2)):
            images = tf.constant(np.ones((1, size, size, 2), np.float32))
            filters = tf.constant(np.ones((kernel, kernel, 2, 3), np.float32))
            out = sess.run(tf.nn.conv2d(images, filters, strides=stride, padding="SAME"))
            assert out.shape[1] == -(-size // stride)


def test_dense_settings_on_one_input():
    with tf.Graph().as_default(), tf1.Session() as sess:
        inputs = tf1.placeholder(tf.float32, [None, 4])
        batch = np.ones((2, 4), np.float32)
        sess.run(tf.reduce_sum(inputs), {inputs: batch})
        for units, bias, activation in [(2, True, None), (3, False, None), (4, True, tf.nn.relu), (5, True, tf.tanh)]:
            kernel = tf.constant(np.full((4, units), 0.1, np.float32))
            out = tf.matmul(inputs, kernel)
            if bias:
                out = out + tf.constant(np.zeros(units, np.float32))
            if activation is not None:
                out = activation(out)
            assert sess.run(out, {inputs: batch}).shape == (2, units)
