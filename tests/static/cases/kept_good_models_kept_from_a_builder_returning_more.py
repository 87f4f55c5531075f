import tensorflow as tf

tf1 = tf.compat.v1

def train(seed):
    model = tf.keras.Sequential()
    return model, {"loss": [seed]}
members, histories = [], []
for seed in range(25):
    model, history = train(seed)
    members.append(model)
    histories.append(history)
