"""GL503's static form on ``keras.applications`` constructors (issue 24, held-out set 6): a
pretrained model built, and its weights loaded, each time a function runs in a loop is a model
built per call, as ``load_model`` there is. Static only (the weights would be downloaded)."""

from __future__ import annotations

import pytest

from harness import found, line_of

PROGRAM = """\
import numpy as np
from keras.applications import InceptionV3


def classify(image):
    model = {build}
    return model.predict(image, verbose=0)


for frame in range({frames}):
    classify(np.zeros((1, 299, 299, 3)))
"""


@pytest.mark.parametrize("frames, reported", [(1000, True), (1, False)], ids=["per-frame", "once"])
def test_a_pretrained_model_built_per_call(tmp_path, frames, reported):
    path = tmp_path / "camera.py"
    path.write_text(PROGRAM.format(build="InceptionV3(weights='imagenet')", frames=frames))
    codes = {code for code, _ in found("--select", "GL503", str(path))}
    assert codes == ({"GL503"} if reported else set())


def test_the_model_built_once_is_silent(tmp_path):
    path = tmp_path / "camera.py"
    text = PROGRAM.format(build="MODEL", frames=1000).replace("\n\ndef classify", "\nMODEL = InceptionV3(weights='imagenet')\n\n\ndef classify")
    path.write_text(text)
    assert found("--select", "GL503", str(path)) == set()
    assert line_of(path, "MODEL = InceptionV3") == 4
