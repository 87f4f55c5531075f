"""GL302 fetch-churn: one session run with a different fetch list every time.

The debugging loop below inspects a 16-layer network one layer at a time: every
`sess.run(activations[name], ...)` is a new fetch combination, so the runtime prunes the graph,
builds an executor for that subgraph and caches it for the life of the session — 16 times,
and the whole forward pass is recomputed for each layer.
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
    for name in activations:
        value = sess.run(activations[name], {inputs: batch})  # GL302
        print(f"{name}: mean activation {value.mean():.4f}")
