"""GL102 op-in-run-loop: a fresh variable, an initializer and an add built at every step.

Each step makes a new counter variable, a new `global_variables_initializer()` and an add
on the new counter, and runs them. The step's add reads only its own counter, but the
initializer waits on every variable made so far, the earlier steps' ones included: the
same ops again, on a graph that grows at every step.
"""

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

with tf1.Session() as sess:
    for step in range(5):
        counter = tf1.Variable(0)
        sess.run(tf1.global_variables_initializer())  # GL102
        print(step, sess.run(counter + step))
