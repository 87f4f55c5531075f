import tensorflow as tf

tf1 = tf.compat.v1

import numpy as np
weights = np.load("weights.npy", allow_pickle=True).item()
sess = tf1.Session()
for layer in weights:
    with tf1.variable_scope(layer, reuse=True):
        for name, value in weights[layer].items():
            var = tf1.get_variable(name)
            sess.run(var.assign(value))
            sess.run(tf1.get_variable(name).assign(value))
