import tensorflow as tf

tf1 = tf.compat.v1

x = tf.constant([1.0, 2.0])
sess = tf1.Session()
for mode in ["train", "eval", "test"]:
    sess.run(tf.reduce_sum(x))  # GL102
    s = tf1.Session()  # GL301
    m = tf.keras.Sequential()  # GL503
