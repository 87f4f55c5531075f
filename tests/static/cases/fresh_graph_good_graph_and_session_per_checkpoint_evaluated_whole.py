import tensorflow as tf

tf1 = tf.compat.v1

import glob
def evaluate(checkpoint):
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None])
        y = x * 2.0
        scores = []
        with tf1.Session() as sess:
            for batch in range(10):
                scores.append(sess.run(y, {x: [float(batch)]}))
        return scores
def evaluate_all():
    with tf1.Session() as log:
        summary = tf.constant(0.0)
        for checkpoint in glob.glob("*.ckpt"):
            log.run(summary)
            evaluate(checkpoint)
