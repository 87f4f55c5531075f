import tensorflow as tf

tf1 = tf.compat.v1

x = tf.constant(1.0)
sess = tf1.Session()
for step in range(100):
    x = x + 1  # GL102
    print(sess.run(x))
