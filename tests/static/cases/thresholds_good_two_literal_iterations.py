import tensorflow as tf

tf1 = tf.compat.v1

x = tf.constant([1.0, 2.0])
sess = tf1.Session()
for mode in ["train", "eval"]:
    sess.run(tf.reduce_sum(x))
    s = tf1.Session()
    m = tf.keras.Sequential()
