"""The same `keras.applications` model scores all images in one batched `predict` call.

The helper takes the whole stack of images: one pipeline for all of them.
"""

import numpy as np
from keras.applications.mobilenet_v2 import MobileNetV2, preprocess_input

net = MobileNetV2(weights=None, input_shape=(32, 32, 3), alpha=0.35, classes=3)


def classify_all(images, model):
    x = preprocess_input(np.array(images))
    return [int(i) for i in np.argmax(model.predict(x, verbose=0), axis=1)]


images = np.linspace(0.0, 255.0, 6 * 32 * 32 * 3, dtype=np.float32).reshape(6, 32, 32, 3)
print(classify_all(images, net))
