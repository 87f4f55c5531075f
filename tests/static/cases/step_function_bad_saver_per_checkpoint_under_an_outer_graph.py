import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def optimize(batches, print_every):
    with tf.Graph().as_default(), tf1.Session() as sess:
        x = tf1.placeholder(tf.float32, [None, 4])
        loss = tf.reduce_sum(tf1.layers.dense(x, 1))
        train = tf1.train.AdamOptimizer(1e-3).minimize(loss)
        sess.run(tf1.global_variables_initializer())
        for step, batch in enumerate(batches):
            sess.run(train, {x: batch})
            if step % print_every == 0:
                saver = tf1.train.Saver()  # GL102
                saver.save(sess, "ckpt/model", global_step=step)


optimize(np.ones((1000, 8, 4)), 100)
