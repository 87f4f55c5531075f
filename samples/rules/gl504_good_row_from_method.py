"""The same one-row samples from methods and helpers, passed to the model directly.

Each step needs the result of the one before, so there is no batch to gather:
`model(x, training=False)` runs the model on the row without a data pipeline per call.
"""

import numpy as np
import keras


class FrameStack:
    def __init__(self, depth, width):
        self.frames = np.zeros((depth, width), dtype=np.float32)

    def _observe(self, frame):
        self.frames = np.roll(self.frames, 1, axis=0)
        self.frames[0] = frame
        return np.expand_dims(self.frames, 0)

    def reset(self):
        self.frames[:] = 0.0
        return self._observe(np.zeros(self.frames.shape[1], dtype=np.float32))

    def step(self, frame):
        return self._observe(frame), float(frame.sum())


def encode(text, maxlen):
    return keras.utils.pad_sequences([[ord(c) % 16 for c in text]], maxlen=maxlen)


policy = keras.Sequential([keras.Input(shape=(2, 3)), keras.layers.Flatten(), keras.layers.Dense(2)])
frames = np.linspace(0.0, 1.0, 24, dtype=np.float32).reshape(8, 3)
env = FrameStack(2, 3)
state = env.reset()
for frame in frames:
    q = policy(state.astype("float32"), training=False)
    state, reward = env.step(frame)

chars = "abcd"
reader = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(len(chars))])
window = keras.Sequential([keras.Input(shape=(4, len(chars))), keras.layers.Flatten(), keras.layers.Dense(len(chars))])
text = "abca"
for _ in range(8):
    nxt = chars[int(np.argmax(reader(encode(text, 4), training=False)))]
    onehot = np.zeros((1, 4, len(chars)))
    for t, c in enumerate(text[-4:]):
        onehot[0, t, chars.index(c)] = 1.0
    nxt = chars[int(np.argmax(window(onehot, training=False)))]
    text += nxt
print(text)
