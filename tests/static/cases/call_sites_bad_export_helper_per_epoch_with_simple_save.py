import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1

x = tf1.placeholder(tf.float32, [None, 4])
y = tf1.layers.dense(x, 2)
train = tf1.train.AdamOptimizer(1e-3).minimize(tf.reduce_sum(y))
step = tf1.train.get_or_create_global_step()
sess = tf1.Session()
sess.run(tf1.global_variables_initializer())


def train_epoch(batches):
    for batch in batches:
        sess.run(train, {x: batch})


def export(epoch):
    print("global step", sess.run(step))
    tf1.saved_model.simple_save(sess, f"export/{epoch}", inputs={"x": x}, outputs={"y": y})  # GL101


for epoch in range(100):
    train_epoch(np.zeros((10, 8, 4)))
    export(epoch)
