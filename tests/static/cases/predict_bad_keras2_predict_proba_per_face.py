# Keras 2's Sequential.predict_proba and predict_classes call predict: one face per call
import numpy as np
from keras.layers import Dense, Flatten
from keras.models import Sequential, load_model

model = Sequential([Flatten(input_shape=(8, 8, 3)), Dense(2, activation="softmax")])
reloaded = load_model("boss.h5")
faces = np.zeros((100, 8, 8, 3))
for face in faces:
    image = face.reshape((1, 8, 8, 3)).astype("float32") / 255
    scores = model.predict_proba(image)  # GL504
    label = reloaded.predict_classes(image)[0]  # GL504
