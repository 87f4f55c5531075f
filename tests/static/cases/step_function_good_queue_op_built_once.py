import tensorflow as tf

tf1 = tf.compat.v1

import queue
q = tf1.FIFOQueue(100, tf.float32)
take = q.dequeue()
jobs = queue.Queue()
sess = tf1.Session()
for i in range(10):
    print(sess.run(take))
    jobs.put(i)
    print(jobs.size() if hasattr(jobs, "size") else jobs.qsize())
