import tensorflow as tf

tf1 = tf.compat.v1

import numpy as np
sess = tf1.Session()
batches = []
batches.append(tf1.Variable(1.0))
batches.append(np.zeros(3))
for batch in batches:
    print(sess.run(tf.reduce_mean(batch)))  # GL102
