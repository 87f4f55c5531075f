import tensorflow as tf

tf1 = tf.compat.v1

import sys
x = tf.constant(1.0)
sess = tf1.Session()
for step in range(100):
    if sys.argv[1] == "train":
        sess.run(tf.square(x))  # GL102
    if step == 0:
        sess.run(tf.sqrt(x))
    if step == 99 - 1:
        sess.run(tf.exp(x))
