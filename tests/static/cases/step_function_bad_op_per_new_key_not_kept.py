import tensorflow as tf

tf1 = tf.compat.v1

v = tf1.Variable(0.0)
sess = tf1.Session()
seen = set()
for step in range(100):
    if step not in seen:
        seen.add(step)
        sess.run(tf1.assign(v, step))  # GL102
