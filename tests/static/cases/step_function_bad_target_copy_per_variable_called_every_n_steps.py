import tensorflow as tf

tf1 = tf.compat.v1

def copy_params(src, dst):
    ops = []
    for a, b in zip(src, dst):
        ops.append(b.assign(a))  # GL102
    tf1.get_default_session().run(ops)
online, target = [tf1.Variable(1.0)], [tf1.Variable(0.0)]
with tf1.Session() as sess:
    for step in range(10000):
        if step % 100 == 0:
            copy_params(online, target)
