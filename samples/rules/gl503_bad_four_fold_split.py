"""GL503 keras-model-churn: a four-fold cross-validation clearing the Keras state only after.

The same `cross_validate()` as `gl503_good_two_fold_split.py` with four folds: four models are
built one after another with nothing clearing the Keras state between them, and
`clear_session()` comes only once the loop is over.
"""

import numpy as np
import keras


def cross_validate(x, y):
    scores = []
    for fold in np.array_split(np.arange(len(x)), 4):
        train = np.setdiff1d(np.arange(len(x)), fold)
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])  # GL503
        model.compile(optimizer="sgd", loss="mse")
        model.fit(x[train], y[train], epochs=1, verbose=0)
        scores.append(model.evaluate(x[fold], y[fold], verbose=0))
    keras.backend.clear_session()
    return float(np.mean(scores))


x = np.linspace(0, 1, 24, dtype="float32").reshape(8, 3)
print(round(cross_validate(x, x.sum(axis=1, keepdims=True)), 3) >= 0)
