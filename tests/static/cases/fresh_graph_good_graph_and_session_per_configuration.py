import tensorflow as tf

tf1 = tf.compat.v1

def train(lr):
    with tf.Graph().as_default():
        x = tf1.Variable(1.0)
        step = tf1.assign_sub(x, lr)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            for i in range(100):
                sess.run(step)
for lr in (0.1, 0.01, 0.001):
    train(lr)
