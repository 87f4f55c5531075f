import tensorflow as tf

tf1 = tf.compat.v1

v = tf1.Variable(1.0)
optimizer = tf1.train.GradientDescentOptimizer(0.1)
sess = tf1.Session()
for epoch in range(100):
    sess.run(v.assign(2.0))  # GL102
    sess.run(optimizer.lr.assign_sub(0.01))  # GL102
