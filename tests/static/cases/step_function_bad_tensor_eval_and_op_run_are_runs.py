import tensorflow as tf

tf1 = tf.compat.v1

x = tf1.placeholder(tf.float32, [None])
loss = tf.reduce_sum(x)
train_step = tf1.train.GradientDescentOptimizer(0.1).minimize(loss)
sess = tf1.InteractiveSession()
for step in range(100):
    train_step.run({x: [1.0]})
    accuracy = tf.reduce_mean(x)  # GL102
    print(accuracy.eval({x: [1.0]}))
for step in range(100):
    print(tf.nn.softmax(x).eval())  # GL102
