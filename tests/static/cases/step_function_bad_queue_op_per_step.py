import tensorflow as tf

tf1 = tf.compat.v1

q = tf1.FIFOQueue(100, tf.float32)
sess = tf1.Session()
for i in range(10):
    print(sess.run(q.dequeue()))  # GL102
    sess.run(tf1.RandomShuffleQueue(10, 2, tf.float32).size())  # GL102
