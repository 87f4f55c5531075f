import tensorflow as tf

tf1 = tf.compat.v1

def dense(x, n):
    with tf1.variable_scope("dense"):
        try:
            w = tf1.get_variable("w", [4, n])
        except ValueError as err:
            err.args += ("check the input width",)
            raise
    return tf.matmul(x, w)
