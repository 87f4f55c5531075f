import tensorflow as tf

tf1 = tf.compat.v1

x = tf.constant(1.0)
def evaluate(sess, tensor):
    return sess.run(tensor)
sess = tf1.Session()
for epoch in range(100):
    evaluate(sess, tf.square(x))  # GL102
