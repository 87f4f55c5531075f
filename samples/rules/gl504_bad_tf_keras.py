"""GL504 predict-in-loop with tf-keras (Keras 2, `import tf_keras`).

Each request row is passed to `model.predict` on its own: every call sets up a data pipeline
for one row.
"""

import numpy as np
import tf_keras

model = tf_keras.Sequential([tf_keras.layers.Dense(1, input_shape=(3,))])
rows = np.ones((8, 3), dtype=np.float32)
for row in rows:
    print(model.predict(row[None, :], verbose=0).item())  # GL504
