import tensorflow as tf

tf1 = tf.compat.v1

class Net:
    def __init__(self, n):
        self.x = tf1.placeholder(tf.float32, [None, n])  # GL101
        self.y = tf1.layers.dense(self.x, 1)
        self.sess = tf1.Session()
        self.sess.run(tf1.global_variables_initializer())
for trial in range(30):
    net = Net(4)
    print(net.sess.run(net.y, {net.x: [[1.0] * 4]}))
def score(rows):
    return Net(4).sess.run(tf.constant(1.0))
