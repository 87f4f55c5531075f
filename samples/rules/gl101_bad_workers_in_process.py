"""GL101 graph-rebuilt: the workers run one after another in this process, on one default graph.

The same `worker()` as in `gl101_good_worker_processes.py`, but called in a loop of the launcher
instead of in a process of its own: every call adds another copy of the placeholder and the
network to the one default graph, and the session's graph grows with every worker.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
sess = tf1.Session()


def worker(seed, results):
    rng = np.random.default_rng(seed)
    states = tf1.placeholder(tf.float32, [None, 4], name="states")  # GL101
    weights = tf.constant(rng.normal(size=(4, 2)).astype(np.float32))
    policy = tf.nn.softmax(tf.matmul(states, weights))
    for step in range(3):
        sess.run(policy, {states: rng.normal(size=(1, 4))})
    results.append((seed, len(sess.graph.get_operations())))


results = []
for seed in range(2):
    worker(seed, results)
print(sorted(results))
