import tensorflow as tf

tf1 = tf.compat.v1

def evaluate(sess):
    x = tf1.placeholder(tf.float32, [None])
    return sess.run(x * 2.0, {x: [1.0]})
def test_a():
    with tf.Graph().as_default(), tf1.Session() as sess:
        evaluate(sess)
def test_b():
    with tf1.Session() as sess:
        evaluate(sess)
