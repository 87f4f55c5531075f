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


VIEW = """\
import numpy as np
from django.http import JsonResponse
from keras.models import load_model


def {name}({first}):
    model = load_model("model.keras")
    image = np.expand_dims(np.zeros((28, 28, 1)), 0)
    return JsonResponse({{"score": float(model.predict(image, verbose=0)[0][0])}})
"""


@pytest.mark.parametrize(
    "name, first, reported",
    [("home", "request", True), ("home", "path", False), ("_helper", "request", True)],
    ids=["a-view", "not-a-request", "any-name"],
)
def test_a_django_view_runs_per_request(tmp_path, name, first, reported):
    """A top-level function of a module that imports Django, taking ``request`` first, is a
    view (routed in ``urls.py``): a model loaded there is loaded per request."""
    path = tmp_path / "views.py"
    path.write_text(VIEW.format(name=name, first=first))
    codes = {code for code, _ in found("--select", "GL503", str(path))}
    assert codes == ({"GL503"} if reported else set())
    plain = tmp_path / "plain.py"
    plain.write_text(VIEW.format(name=name, first=first).replace("from django.http import JsonResponse\n", "JsonResponse = dict\n"))
    assert found("--select", "GL503", str(plain)) == set()  # no Django: nothing says it is a view
