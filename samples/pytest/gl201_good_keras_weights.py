"""Two Keras models in one graph: Keras' own weight and metric names repeat, and that is fine.

Both models have a batch normalization layer (`gamma`, `moving_mean`) and a mean absolute
error metric (`total`, `count`), built in one graph, so TensorFlow numbers the second set of
names. Nobody chose those names, and Keras keeps and saves each weight by its object.
"""

import numpy as np
import tensorflow as tf
import tf_keras as keras

X = np.ones((8, 4), np.float32)
Y = np.ones((8, 1), np.float32)


def make_model(units):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(units), keras.layers.BatchNormalization(), keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
    return model


def test_two_models_train_in_one_graph():
    with tf.Graph().as_default():
        first = make_model(2)
        first.fit(X, Y, epochs=1, verbose=0)
        second = make_model(3)
        second.fit(X, Y, epochs=1, verbose=0)
