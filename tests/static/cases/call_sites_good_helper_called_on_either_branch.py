import tensorflow as tf

tf1 = tf.compat.v1

import sys
def evaluate(sess):
    x = tf1.placeholder(tf.float32, [None])
    return sess.run(x * 2.0, {x: [1.0]})
def main():
    sess = tf1.Session()
    if sys.argv[1:] == ["train"]:
        evaluate(sess)
    else:
        evaluate(sess)
