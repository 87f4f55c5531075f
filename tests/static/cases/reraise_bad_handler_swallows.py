import tensorflow as tf

tf1 = tf.compat.v1

def dense(x, n):
    w = None
    with tf1.variable_scope("dense"):
        try:
            w = tf1.get_variable("w", [4, n])  # GL202
        except ValueError:
            pass
    return w
