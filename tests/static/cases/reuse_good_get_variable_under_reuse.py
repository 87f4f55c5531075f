import tensorflow as tf

tf1 = tf.compat.v1

import sys
sess = tf1.Session()
for name in sys.argv[1:]:
    with tf1.variable_scope(name, reuse=True):
        try:
            v = tf1.get_variable("w")
        except ValueError:
            continue
    print(sess.run(v))
