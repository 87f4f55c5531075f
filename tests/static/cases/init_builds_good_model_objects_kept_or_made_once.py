import tensorflow as tf

tf1 = tf.compat.v1

class Net:
    def __init__(self, n):
        self.x = tf1.placeholder(tf.float32, [None, n])
        self.y = tf1.layers.dense(self.x, 1)
members = []
for seed in range(5):
    members.append(Net(4))
for n in range(3, 30):
    with tf.Graph().as_default():
        net = Net(n)
single = Net(4)
