import tensorflow as tf

tf1 = tf.compat.v1

import sys
steps = int(sys.argv[1])
lr = tf1.Variable(0.1)
sess = tf1.Session()
for step in range(1, steps + 1):
    sess.run(lr)
    if step % (steps // 2) == 0:
        sess.run(tf1.assign(lr, lr * 0.3))
    if step == steps // 3:
        sess.run(tf1.assign(lr, lr * 0.5))
    if step in (100, 200):
        s = tf1.Session()
for i, batch in enumerate(sys.argv):
    if i == 0 or i == 7:
        sess.run(tf1.assign(lr, lr * 0.9))
