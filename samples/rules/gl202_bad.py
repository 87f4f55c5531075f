"""GL202 variable-exists: a copy-pasted layer asks for a variable that already exists.

The second block was copied from the first and still opens the scope "encoder": its
`get_variable("kernel")` is refused with "Variable encoder/kernel already exists, disallowed".
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

inputs = tf1.placeholder(tf.float32, [None, 4], name="inputs")
with tf1.variable_scope("encoder"):
    kernel = tf1.get_variable("kernel", [4, 3])
    code = tf.nn.tanh(tf.matmul(inputs, kernel))
with tf1.variable_scope("encoder"):  # should have been "decoder"
    kernel = tf1.get_variable("kernel", [3, 4])  # GL202
    reconstruction = tf.matmul(code, kernel)

with tf1.Session() as sess:
    sess.run(tf1.global_variables_initializer())
    print(sess.run(reconstruction, {inputs: np.ones((1, 4), dtype=np.float32)}))
