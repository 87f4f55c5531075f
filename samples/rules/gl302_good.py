"""The fix for fetch churn: fetch one fixed structure per step.

All the layer activations are fetched together as one dict: a single fetch combination, one
pruned subgraph, and the forward pass runs once.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

N_LAYERS = 16

inputs = tf1.placeholder(tf.float32, [None, 8], name="inputs")
activations = {}
hidden = inputs
for i in range(N_LAYERS):
    with tf1.variable_scope(f"layer{i}"):
        kernel = tf1.get_variable("kernel", [8, 8], initializer=tf1.glorot_uniform_initializer(seed=i))
        hidden = tf.nn.relu(tf.matmul(hidden, kernel))
    activations[f"layer{i}"] = hidden
init = tf1.global_variables_initializer()

batch = np.ones((4, 8), dtype=np.float32)
with tf1.Session() as sess:
    sess.run(init)
    values = sess.run(activations, {inputs: batch})
    for name, value in values.items():
        print(f"{name}: mean activation {value.mean():.4f}")
