import tensorflow as tf

tf1 = tf.compat.v1

x = tf.constant(1.0)
sess = tf1.Session()
total = 0.0
for step in range(100):
    value = sess.run(x)
    total = total + value
    print("step %d" % step, value * 2)
