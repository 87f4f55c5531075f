import tensorflow as tf

tf1 = tf.compat.v1

def evaluate(sess):
    x = tf1.placeholder(tf.float32, [None])  # GL101
    return sess.run(x * 2.0, {x: [1.0]})
def main():
    sess = tf1.Session()
    evaluate(sess)
    evaluate(sess)
