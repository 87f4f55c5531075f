import tensorflow as tf

tf1 = tf.compat.v1

import sys
models = {}
for name in sys.argv:
    m = tf.keras.Sequential()
    models[name] = m
def ensemble(names):
    for name in names:
        yield tf.keras.Sequential()
class Agent:
    pass
agents = [Agent() for _ in sys.argv]
for agent in agents:
    agent.sess = tf1.Session()
