"""A cross-validation loop runs as many times as its folds (issue 24): ``np.array_split(x, k)``
and scikit-learn's ``KFold(n_splits=k).split(X)`` (made in the loop header or bound once to a
name) run ``k`` passes, the splitter's default when ``n_splits`` is not given. GL503's
``max-per-site`` (2) then tells a two-fold loop from churn."""

from __future__ import annotations

import pytest

from harness import found

CV = """\
import numpy as np
import keras
from sklearn.model_selection import KFold, StratifiedKFold
{setup}

def cross_validate(x, y):
    scores = []
    for train, test in {folds}:
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        scores.append(model.fit(x[train], y[train], verbose=0))
    keras.backend.clear_session()
    return scores
"""


@pytest.mark.parametrize(
    "setup, folds, reported",
    [
        ("", "KFold(n_splits=2).split(x)", False),
        ("", "KFold(2, shuffle=True).split(x)", False),
        ("SPLITTER = StratifiedKFold(n_splits=2)", "SPLITTER.split(x, y)", False),
        ("", "KFold(n_splits=3).split(x)", True),
        ("", "KFold().split(x)", True),  # scikit-learn's default: 5 folds
        ("SPLITTER = StratifiedKFold(n_splits=2)\nSPLITTER = KFold(10)", "SPLITTER.split(x, y)", True),
        ("", "zip(np.array_split(x, 2), np.array_split(y, 2))", False),
        ("", "zip(np.array_split(x, 4), np.array_split(y, 4))", True),
        ("", "zip(np.split(x, [2, 5]), np.split(y, [2, 5]))", True),  # split points: unknown count
    ],
)
def test_a_loop_over_folds_runs_once_per_fold(tmp_path, setup, folds, reported):
    path = tmp_path / "cv.py"
    path.write_text(CV.format(setup=setup, folds=folds))
    line = 9 + setup.count("\n")
    assert found("--no-cache", str(path)) == ({("GL503", line)} if reported else set())
