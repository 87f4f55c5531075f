import sys

import numpy as np
from tensorflow.keras.layers import *
from tensorflow.keras.models import *

inputs = Input(shape=(4,))
model = Model(inputs, Dense(2)(inputs))
loaded = load_model(sys.argv[1])
frames = np.zeros((100, 4))
for frame in frames:
    model.predict(frame[None], verbose=0)  # GL504
    loaded.predict(np.array([frame]))  # GL504
