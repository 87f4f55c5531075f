import tensorflow as tf

tf1 = tf.compat.v1

import sys
for name in sys.argv:
    m = tf.keras.Sequential()  # GL503
    print(m)
for name in sys.argv:
    sess = tf1.Session()  # GL301
