import tensorflow as tf

tf1 = tf.compat.v1

import functools
@functools.lru_cache(maxsize=None)
def squared(x):
    return tf.square(x)
x = tf.constant(3.0)
sess = tf1.Session()
for step in range(100):
    print(sess.run(squared(x)))
