import tensorflow as tf

tf1 = tf.compat.v1

import numpy as np
sess = tf1.Session()
for batch in np.split(np.zeros(100), 50):
    sess.run(tf.reduce_mean(batch))  # GL102
