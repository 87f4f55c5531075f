"""The evaluation tower reuses the training tower's scope by its exact name.

Both towers open `variable_scope("classifier")`, the second with `reuse=True`, so the
evaluation tower shares the training tower's variables.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def logits_layer(x):
    with tf1.variable_scope("logits"):
        kernel = tf1.get_variable("kernel", [4, 3])
        bias = tf1.get_variable("bias", [3], initializer=tf1.zeros_initializer())
    return tf.matmul(x, kernel) + bias


train_inputs = tf1.placeholder(tf.float32, [None, 4], name="train_inputs")
with tf1.variable_scope("classifier"):
    train_logits = logits_layer(train_inputs)

eval_inputs = tf1.placeholder(tf.float32, [None, 4], name="eval_inputs")
with tf1.variable_scope("classifier", reuse=True):
    eval_logits = logits_layer(eval_inputs)
predictions = tf.argmax(eval_logits, axis=1)

with tf1.Session() as sess:
    sess.run(tf1.global_variables_initializer())
    print(sess.run(predictions, {eval_inputs: np.eye(4, dtype=np.float32)}))
