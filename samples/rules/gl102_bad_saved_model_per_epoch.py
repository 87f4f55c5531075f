"""GL102 op-in-run-loop: a SavedModel exported after every epoch with `simple_save`.

`tf1.saved_model.simple_save` makes a `SavedModelBuilder` and, in it, a new `tf.train.Saver`
for the graph's variables at each call: a saver's save and restore ops are added to the graph
once per epoch, as a `tf1.train.Saver()` built in the loop would be.
"""

import os
import tempfile

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

inputs = tf1.placeholder(tf.float32, [None, 2], name="inputs")
weights = tf1.get_variable("weights", [2, 1])
outputs = tf.matmul(inputs, weights)
loss = tf.reduce_mean(tf.square(outputs - 1.0))
train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss)

with tf1.Session() as sess, tempfile.TemporaryDirectory() as folder:
    sess.run(tf1.global_variables_initializer())
    for epoch in range(4):
        sess.run(train, {inputs: np.ones((8, 2), dtype=np.float32)})
        export = os.path.join(folder, f"epoch{epoch}")
        tf1.saved_model.simple_save(sess, export, inputs={"x": inputs}, outputs={"y": outputs})  # GL102
    print("exports:", len(os.listdir(folder)))
