import tensorflow as tf

tf1 = tf.compat.v1

sess = tf1.Session()
for epoch in range(100):
    for var in tf1.trainable_variables():
        sess.run(var.assign(var * 0.99))  # GL102
