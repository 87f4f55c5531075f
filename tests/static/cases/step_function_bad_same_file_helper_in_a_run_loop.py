import tensorflow as tf

tf1 = tf.compat.v1

def polynomial(x):
    return tf.square(x) + 2.0 * x
x = tf.constant(3.0)
sess = tf1.Session()
for step in range(100):
    print(sess.run(polynomial(x)))  # GL102
