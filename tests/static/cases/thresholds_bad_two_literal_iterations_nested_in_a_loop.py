import tensorflow as tf

tf1 = tf.compat.v1

x = tf.constant([1.0, 2.0])
sess = tf1.Session()
for epoch in range(100):
    for mode in ["train", "eval"]:
        sess.run(tf.reduce_sum(x))  # GL102
