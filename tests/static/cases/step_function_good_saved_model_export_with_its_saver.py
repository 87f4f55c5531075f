import tensorflow as tf

tf1 = tf.compat.v1

x = tf1.placeholder(tf.float32, [None, 4])
y = tf1.layers.dense(x, 2)
train = tf1.train.AdamOptimizer(1e-3).minimize(tf.reduce_sum(y))
saver = tf1.train.Saver(sharded=True)
sess = tf1.Session()
sess.run(tf1.global_variables_initializer())
for epoch in range(100):
    sess.run(train, {x: [[0.0] * 4]})
    if epoch == 0:  # once
        tf.saved_model.simple_save(sess, "first", inputs={"x": x}, outputs={"y": y})
    builder = tf1.saved_model.builder.SavedModelBuilder(f"b/{epoch}")
    builder.add_meta_graph_and_variables(sess, ["serve"], saver=saver)
    builder.save()
tf.saved_model.simple_save(sess, "last", inputs={"x": x}, outputs={"y": y})
