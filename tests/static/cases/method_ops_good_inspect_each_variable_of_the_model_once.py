import tensorflow as tf

tf1 = tf.compat.v1

class Net:
    def __init__(self, sizes):
        self.sess = tf1.Session()
        self.weights = []
        for n in sizes:
            w = tf1.Variable(tf.zeros([n, n]))
            self.weights.append(w)
        self.biases = [tf1.Variable(0.0)]
    def show(self):
        for w in self.weights:
            print(self.sess.run(tf.shape(w)), self.sess.run(w))
        for v in tf1.trainable_variables():
            print(v.name, self.sess.run(tf.reduce_mean(v)))
Net([2, 3]).show()
