import tensorflow as tf

tf1 = tf.compat.v1

class Agent:
    def __init__(self, sess, pairs):
        self.sess = sess
        self.pairs = pairs
    def learn(self):
        self.sess.run([tf1.assign(t, e) for t, e in self.pairs])  # GL102
agent = Agent(tf1.Session(), [])
for step in range(1000):
    agent.learn()
