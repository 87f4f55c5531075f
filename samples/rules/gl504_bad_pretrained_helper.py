"""GL504 predict-in-loop: a `keras.applications` model passed to a helper that scores one image.

`MobileNetV2(...)` is a Keras model. The helper expands one image to a batch of one,
preprocesses it and calls `predict`; the loop calls the helper per image (as a server does per
request): a data pipeline and callbacks for every single image.
"""

import numpy as np
from keras.applications.mobilenet_v2 import MobileNetV2, preprocess_input

net = MobileNetV2(weights=None, input_shape=(32, 32, 3), alpha=0.35, classes=3)


def classify(image, model):
    x = np.expand_dims(image, axis=0)
    x = preprocess_input(x)
    return int(np.argmax(model.predict(x, verbose=0)))  # GL504


images = np.linspace(0.0, 255.0, 6 * 32 * 32 * 3, dtype=np.float32).reshape(6, 32, 32, 3)
labels = []
for image in images:
    labels.append(classify(image, net))
print(labels)
