import tensorflow as tf

tf1 = tf.compat.v1

import numpy as np
sess = tf1.Session()
for var, value in zip(tf1.global_variables(), np.load("weights.npy")):
    sess.run(var.assign(value))
