import tensorflow as tf

tf1 = tf.compat.v1

from mpi4py import MPI

x = tf1.placeholder(tf.float32, [None, 4])
y = tf1.layers.dense(x, 2)
train = tf1.train.AdamOptimizer(1e-3).minimize(tf.reduce_sum(y))
sess = tf1.Session()
sess.run(tf1.global_variables_initializer())
serving = tf1.saved_model.builder.SavedModelBuilder("serving")
serving.add_meta_graph_and_variables(sess, ["serve"])
for epoch in range(100):
    sess.run(train, {x: [[0.0] * 4]})
    if MPI.COMM_WORLD.Get_rank() == 0:  # the first process, at every epoch
        tf.saved_model.simple_save(sess, f"out/{epoch}", inputs={"x": x}, outputs={"y": y})  # GL102
    tf1.saved_model.Builder(f"b/{epoch}").add_meta_graph_and_variables(sess, ["serve"])  # GL102
    serving.add_meta_graph([f"tag{epoch}"], saver=None)  # GL102
serving.save()
