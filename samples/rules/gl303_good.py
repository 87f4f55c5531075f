"""The fix for leaked sessions: close them, or keep just one.

`evaluate()` opens its session in a `with` block, so it is closed on return. The training
session is the program's one long-lived session: leaving it open until the script ends is fine.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

rng = np.random.default_rng(0)
features = rng.normal(size=(64, 4)).astype(np.float32)
labels = (features.sum(axis=1, keepdims=True) > 0).astype(np.float32)

inputs = tf1.placeholder(tf.float32, [None, 4], name="inputs")
targets = tf1.placeholder(tf.float32, [None, 1], name="targets")
weights = tf1.get_variable("weights", [4, 1], initializer=tf1.zeros_initializer())
logits = tf.matmul(inputs, weights)
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(logits > 0, tf.float32), targets), tf.float32))
init = tf1.global_variables_initializer()


def evaluate():
    with tf1.Session() as sess:
        sess.run(init)
        return sess.run(accuracy, {inputs: features, targets: labels})


print("baseline accuracy:", evaluate())

sess = tf1.Session()
sess.run(init)
print("accuracy in the long-lived session:", sess.run(accuracy, {inputs: features, targets: labels}))
