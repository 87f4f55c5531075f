"""GL503's static form on models built or loaded again and again (issue 24): `load_model` in a
web handler or a per-call method, a model rebuilt from its config in an endless loop through a
`load()` method of the user's, and what builds no model each time — a model loaded once at
module level, in `__init__` or behind a cache, and a functional view over an existing model's
tensors. Static only: Flask is no dependency, and at runtime a builder's findings are reported
at the line that builds the model (these programs are not run)."""

from __future__ import annotations

import textwrap

import pytest

from harness import check_json, found

HANDLER = """\
import numpy as np
from flask import Flask
from tensorflow.keras.models import load_model

app = Flask(__name__)
{setup}

@app.route("/classify", methods=["POST"])
def classify():
    row = np.zeros((1, 4), np.float32)
{body}
    return {{"score": float(model(row, training=False)[0, 0])}}  # (not predict: GL504 is no concern here)
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def _handler(setup="", body=""):
    return HANDLER.format(setup=setup, body=body)


def test_load_model_in_a_flask_route_is_found(tmp_path):
    path = _write(tmp_path, "app.py", _handler(body='    model = load_model("model.keras")'))
    assert found("--no-cache", str(path)) == {("GL503", 11)}
    (finding,) = check_json("--no-cache", str(path))[1]
    assert "`classify()`" in finding["message"] and "web request" in finding["message"]
    assert "once" in finding["fix"] and "clear_session" not in finding["fix"]


def test_load_model_in_a_fastapi_route_is_found(tmp_path):
    source = """\
    from fastapi import FastAPI
    import tensorflow as tf

    router = FastAPI()


    @router.post("/predict")
    async def predict(values: list):
        model = tf.keras.models.load_model("model.keras")
        return model.predict([values]).tolist()
    """
    found_here = found("--no-cache", str(_write(tmp_path, "serve.py", source)))
    assert {f for f in found_here if f[0] == "GL503"} == {("GL503", 9)}


def test_a_route_reaching_a_loader_through_a_helper_is_found_at_the_helper_call(tmp_path):
    setup = '\n\ndef get_model():\n    return load_model("model.keras")\n'
    path = _write(tmp_path, "app.py", _handler(setup=setup, body="    model = get_model()"))
    (finding,) = check_json("--no-cache", str(path))[1]
    assert (finding["code"], finding["line"]) == ("GL503", 15)
    assert [r["line"] for r in finding["related"]] == [9]


@pytest.mark.parametrize(
    "setup, body",
    [
        ('model = load_model("model.keras")', ""),
        ('import functools\n\n\n@functools.lru_cache\ndef get_model():\n    return load_model("model.keras")\n',
         "    model = get_model()"),
        ('_model = None\n\n\ndef get_model():\n    global _model\n    if _model is None:\n'
         '        _model = load_model("model.keras")\n    return _model\n', "    model = get_model()"),
    ],
    ids=["module-level", "lru_cache", "lazy-global"],
)
def test_a_model_loaded_once_for_every_request_is_silent(tmp_path, setup, body):
    assert found("--no-cache", str(_write(tmp_path, "app.py", _handler(setup=setup, body=body)))) == set()


def test_a_per_call_method_that_loads_the_model_is_found_and_one_loading_in_init_is_not(tmp_path):
    source = """\
    import tensorflow as tf


    class Scorer:
        def __init__(self, path):
            self.path = path
            self.model = tf.keras.models.load_model(path)

        def predict(self, rows):
            fresh = tf.keras.models.load_model(self.path)
            return fresh.predict(rows, verbose=0)
    """
    assert found("--no-cache", str(_write(tmp_path, "scorer.py", source))) == {("GL503", 10)}


RELOAD = """\
import json

import tensorflow as tf


class Net:
    def __init__(self, config_path):
        self.config_path = config_path
        self.model = None

    def load(self, weights):
        with open(self.config_path) as f:
            self.model = tf.keras.Model.from_config(json.load(f))
        self.model.load_weights(weights)


def watch(net, paths):
    while True:
        {call}
"""


def test_a_model_rebuilt_from_its_config_in_an_endless_loop_is_found(tmp_path):
    path = _write(tmp_path, "watch.py", RELOAD.format(call="net.load(paths.next_weights())"))
    assert found("--no-cache", str(path)) == set()  # `net` is a parameter: its class is unknown
    path = _write(tmp_path, "watch.py", RELOAD.format(call='fresh = Net("net.json")\n        fresh.load(paths.next_weights())'))
    (finding,) = check_json("--no-cache", str(path))[1]
    assert (finding["code"], finding["line"]) == ("GL503", 20)
    assert "`Net.load()`" in finding["message"] and [r["line"] for r in finding["related"]] == [13]


def test_a_view_over_an_existing_models_tensors_is_no_new_model(tmp_path):
    source = """\
    import tensorflow as tf


    def head(model):
        return tf.keras.Model(inputs=model.inputs[0], outputs=model.outputs[1])


    def fresh(model):
        return tf.keras.Model(model.inputs[0], tf.keras.layers.Dense(2)(model.outputs[1]))


    def run(model, chunks):
        for chunk in chunks:
            head(model)(chunk)
            fresh(model)(chunk)
    """
    assert found("--no-cache", str(_write(tmp_path, "views.py", source))) == {("GL503", 15)}


SLOT = """\
import tensorflow as tf


class Search:
    def run(self, widths, trials):
        for width, trial in zip(widths, trials):
            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(width)])
            {store} = model
"""


@pytest.mark.parametrize(
    "store, churn",
    [("self.best", True), ("self.models[width]", False), ("trial.model", False)],
    ids=["one-slot-replaced", "kept-by-key", "kept-on-each-trial"],
)
def test_a_model_stored_in_one_slot_each_pass_is_replaced_not_kept(tmp_path, store, churn):
    path = _write(tmp_path, "search.py", SLOT.format(store=store))
    assert found("--no-cache", str(path)) == ({("GL503", 7)} if churn else set())
