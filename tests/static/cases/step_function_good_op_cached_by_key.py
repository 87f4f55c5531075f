import tensorflow as tf

tf1 = tf.compat.v1

class Updater:
    def __init__(self, sess, variables):
        self.sess, self.vars, self.ops = sess, variables, {}
    def set(self, name, value):
        if name not in self.ops:
            self.ops[name] = tf1.assign(self.vars[name], value)
        self.sess.run(self.ops[name])
u = Updater(tf1.Session(), {"w": tf1.Variable(0.0)})
for step in range(100):
    u.set("w", 1.0)
