"""GL504 predict-in-loop: the one-row sample made by methods and helpers.

The environment wrapper's `reset()` and `step()` return the frame stack as a batch of one
(`np.expand_dims(..., 0)`); a text helper returns `pad_sequences([ids])`; a one-hot window is
a `np.zeros((1, ...))` filled in place. Each is scored with its own `predict` call per step.
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
    q = policy.predict(state.astype("float32"), verbose=0)  # GL504
    state, reward = env.step(frame)

chars = "abcd"
reader = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(len(chars))])
window = keras.Sequential([keras.Input(shape=(4, len(chars))), keras.layers.Flatten(), keras.layers.Dense(len(chars))])
text = "abca"
for _ in range(8):
    nxt = chars[int(np.argmax(reader.predict(encode(text, 4), verbose=0)))]  # GL504
    onehot = np.zeros((1, 4, len(chars)))
    for t, c in enumerate(text[-4:]):
        onehot[0, t, chars.index(c)] = 1.0
    nxt = chars[int(np.argmax(window.predict(onehot, verbose=0)))]  # GL504
    text += nxt
print(text)
