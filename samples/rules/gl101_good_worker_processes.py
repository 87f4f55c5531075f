"""Worker processes that each build the model once: every process has its own default graph.

An A3C-style launcher starts one `multiprocessing.Process` per worker; `worker()` builds its
placeholder and network and runs a few steps. The workers are no threads sharing one graph:
each process builds into its own default graph, once.
"""

import multiprocessing

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def worker(seed, results):
    tf1.disable_eager_execution()
    rng = np.random.default_rng(seed)
    states = tf1.placeholder(tf.float32, [None, 4], name="states")
    weights = tf.constant(rng.normal(size=(4, 2)).astype(np.float32))
    policy = tf.nn.softmax(tf.matmul(states, weights))
    with tf1.Session() as sess:
        for step in range(3):
            sess.run(policy, {states: rng.normal(size=(1, 4))})
        results.put((seed, len(sess.graph.get_operations())))


if __name__ == "__main__":
    spawn = multiprocessing.get_context("spawn")  # fresh interpreters, as on macOS
    results = spawn.Queue()
    workers = []
    for seed in range(2):
        process = spawn.Process(target=worker, args=(seed, results))
        process.start()
        workers.append(process)
    for process in workers:
        process.join()
    print(sorted(results.get() for _ in workers))
