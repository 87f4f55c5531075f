import tensorflow as tf

tf1 = tf.compat.v1

import sys
steps = int(sys.argv[1])
lr = tf1.Variable(0.1)
sess = tf1.Session()
for step in range(1, steps + 1):
    sess.run(lr)
    if step % 100 == 0:
        sess.run(tf1.assign(lr, lr * 0.3))  # GL102
    if step % (steps // 10) == 0:
        sess.run(tf1.assign(lr, lr * 0.1))  # GL102
    if step in (100, 200, 300):
        s = tf1.Session()  # GL301
    target = step // 2
    if step == target:
        sess.run(tf1.assign(lr, lr * 0.5))  # GL102
for run in range(5):
    for step in range(1000):
        sess.run(lr)
        if step == 500:
            sess.run(tf1.assign(lr, lr * 0.5))  # GL102
