import tensorflow as tf

tf1 = tf.compat.v1

class Agent:
    def __init__(self, sess, pairs):
        self.sess = sess
        self.sync = [tf1.assign(t, e) for t, e in pairs]
    def learn(self):
        self.sess.run(self.sync)
agent = Agent(tf1.Session(), [])
for step in range(1000):
    agent.learn()
