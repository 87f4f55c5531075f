"""GL204 variable-not-initialized: the optimizer is built after the initializer.

`global_variables_initializer()` covers only the variables that exist when it is built;
`MomentumOptimizer.minimize()` creates its slot ("w/Momentum") afterwards, so the first
training step fails with "Could not find variable w/Momentum ... uninitialized". (Adam's
slots and beta powers fail the same way.)
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

inputs = tf1.placeholder(tf.float32, [None, 2], name="inputs")
targets = tf1.placeholder(tf.float32, [None, 1], name="targets")
w = tf1.get_variable("w", [2, 1], initializer=tf1.zeros_initializer())
loss = tf.reduce_mean(tf.square(tf.matmul(inputs, w) - targets))
init = tf1.global_variables_initializer()
train_op = tf1.train.MomentumOptimizer(0.1, momentum=0.9).minimize(loss)  # GL204

x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
y = np.array([[1.0], [2.0]], dtype=np.float32)
with tf1.Session() as sess:
    sess.run(init)
    for step in range(3):
        _, value = sess.run([train_op, loss], {inputs: x, targets: y})
    print("loss:", value)
