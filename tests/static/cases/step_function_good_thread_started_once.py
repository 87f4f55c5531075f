import tensorflow as tf

tf1 = tf.compat.v1

import threading
sess = tf1.Session()
answer = tf.constant(1.0)
def handle():
    with tf1.Session() as s:
        print(s.run(tf.constant(2.0)))
def poll(conn):
    print(sess.run(answer))
threading.Thread(target=handle).start()
for conn in range(10):
    threading.Thread(target=poll, args=(conn,)).start()
