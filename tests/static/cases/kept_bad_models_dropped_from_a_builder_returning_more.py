import tensorflow as tf

tf1 = tf.compat.v1

def train(seed):
    model = tf.keras.Sequential()
    return model, {"loss": [seed]}
for seed in range(25):
    model, history = train(seed)  # GL503
    print(history)
