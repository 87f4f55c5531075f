import tensorflow as tf

tf1 = tf.compat.v1

sess = tf1.Session()
weights = []
weights.append(tf1.Variable(1.0))
for epoch in range(100):
    for w in weights:
        print(sess.run(tf.reduce_mean(w)))  # GL102
