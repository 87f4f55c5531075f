import tensorflow as tf

tf1 = tf.compat.v1

import numpy as np
def align(images):
    with tf.Graph().as_default():
        sess = tf1.Session()  # GL301
        x = tf1.placeholder(tf.float32, [None])
        return sess.run(x * 2.0, {x: images})
with tf1.Session() as sess:
    out = tf.constant(1.0)
    for batch in np.array_split(np.ones(100), 10):
        print(sess.run(out), align(batch))
