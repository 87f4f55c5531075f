"""GL504's static form on more ways real code makes a one-row sample and reaches its model
(issue 24, held-out set 5): a frame stack joined along a feature axis, a channel slice, a list
of inputs of a model with several (token-by-token decoding), a scikit-learn scaler's
``transform([state])``, a model kept in a global that a loader function sets, and a model an
agent is given from outside (``agent.model = build(...)``). Each bad shape has a twin that
differs only where the rule must look, and stays silent. Static only."""

from __future__ import annotations

import textwrap

import pytest

from harness import found, line_of, write_folder

HEADER = """\
import numpy as np
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input(shape=(4, 3)), keras.layers.Flatten(), keras.layers.Dense(2)])
"""

CASES = {
    # name: (body of the step loop's pass, its silent twin)
    "feature-axis-append": (
        "stack = np.append(np.reshape(frame, (1, 4, 1)), stack[:, :, :2], axis=2)",
        "stack = np.append(np.reshape(frame, (1, 4, 1)), stack[:, :, :2], axis=0)",
    ),
    "negative-axis-concatenate": (
        "stack = np.concatenate([np.reshape(frame, (1, 4, 1)), stack[:, :, :2]], axis=-1)",
        "stack = np.concatenate([np.reshape(frame, (1, 4, 1)), stack[:, :, :2]])",
    ),
    "channel-slice": (
        "stack = np.expand_dims(np.ones((4, 5)), 0)[:, :, 0:3]",
        "stack = np.ones((16, 4, 5))[:, :, 0:3]",
    ),
    "first-row": (
        "stack = np.ones((16, 4, 3))[:1]",
        "stack = np.ones((16, 4, 3))[:2]",
    ),
    # a new axis other than the first keeps the rows (held-out set 9: a face given its channel
    # axis after its batch axis)
    "trailing-axis-after-the-row-axis": (
        "stack = np.expand_dims(np.expand_dims(frame, 0), -1)",
        "stack = np.expand_dims(np.expand_dims(frame, 1), -1)",
    ),
    "expand-dims-of-one-row-not-of-two": (
        "stack = np.expand_dims([frame], -1)",
        "stack = np.expand_dims([frame[None], frame[None]], -1)",
    ),
    "tf-expand-dims-on-a-row": (
        "stack = tf.expand_dims(frame[None], axis=2)",
        "stack = tf.expand_dims(frame[:, None], axis=2)",
    ),
    "trailing-newaxis": (
        "stack = np.reshape(frame, (1, 4))[..., np.newaxis]",
        "stack = np.reshape(frame, (4, 1))[..., np.newaxis]",
    ),
    "trailing-none-and-slice": (
        "stack = frame[None][..., :3, None]",
        "stack = frame[..., :3, None]",
    ),
    "reshape-keeping-the-first-axis": (
        "row = frame[None]\n    stack = row.reshape(row.shape[0], 4, 1)",
        "row = frame[:, None]\n    stack = row.reshape(row.shape[0], 1, 1)",
    ),
    "reshape-to-the-shape-and-more": (
        "row = frame[None]\n    stack = np.reshape(row, row.shape + (1,))",
        "row = frame[:, None]\n    stack = np.reshape(row, row.shape + (1,))",
    ),
    "reshape-to-the-starred-shape": (
        "row = frame[None]\n    stack = row.reshape(*row.shape, 1)",
        "row = frame[None]\n    stack = row.reshape(-1, 1, 1)",
    ),
    "reshape-to-the-length": (
        "row = frame[None]\n    stack = np.reshape(row, [len(row), 4, 1])",
        "row = frame[None]\n    stack = np.reshape(row, [len(frame), 1, 1])",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_a_one_row_stack_per_step_is_reported_and_its_twin_is_not(tmp_path, name):
    bad, good = CASES[name]
    program = HEADER + textwrap.dedent("""\
        stack = np.zeros((1, 4, 3))
        for frame in np.ones((500, 4)):
            {step}
            scores = model.predict(stack, verbose=0)
        """)
    path = tmp_path / "bad.py"
    path.write_text(program.format(step=bad))
    assert found(path) == {("GL504", line_of(path, ".predict("))}
    path.write_text(program.format(step=good))
    assert found(path) == set()


DECODER = HEADER + """\
decoder = keras.Model(model.inputs, model.outputs)
h, c = np.zeros((1, 8)), np.zeros((1, 8))
for step in range(100):
    token = {token}
    out = decoder.predict({inputs}, verbose=0)
"""


@pytest.mark.parametrize(
    "token, inputs, reported",
    [
        ("np.array([[step]])", "[token, h, c]", True),
        ("np.zeros((1, 1))", "[token] + [h, c]", True),
        ("np.ones((64, 1))", "[token, np.ones((64, 8)), np.ones((64, 8))]", False),
        ("np.array([[step], [step + 1]])", "[token, np.ones((2, 8))]", False),
    ],
    ids=["list-of-inputs", "list-plus-states", "batched-inputs", "np.array-of-two"],
)
def test_a_list_of_inputs_shares_its_rows(tmp_path, token, inputs, reported):
    """A model's inputs share one batch size: one of them visibly one row makes the call one
    sample; ``np.array([a, b])`` is still two rows."""
    path = tmp_path / "decode.py"
    path.write_text(DECODER.format(token=token, inputs=inputs))
    assert found(path) == ({("GL504", line_of(path, ".predict("))} if reported else set())


@pytest.mark.parametrize("state, reported", [("[state]", True), ("states", False)], ids=["one-row", "batch"])
def test_a_scalers_transform_keeps_the_rows(tmp_path, state, reported):
    path = tmp_path / "trade.py"
    path.write_text(HEADER + textwrap.dedent(f"""\
        from sklearn.preprocessing import StandardScaler

        scaler = StandardScaler()
        states = np.ones((32, 4, 3))
        for state in states:
            x = scaler.transform({state})
            action = model.predict(x, verbose=0)
        """))
    assert found(path) == ({("GL504", line_of(path, ".predict("))} if reported else set())


SERVER = """\
import flask
import numpy as np
from keras.applications import ResNet50

app = flask.Flask(__name__)
model = None


def load_model():
{declare}    model = ResNet50(weights=None)


@app.route("/predict", methods=["POST"])
def predict():
    image = np.expand_dims(np.ones((224, 224, 3)), axis=0)
    return str(model.predict(image))


load_model()
"""


def test_a_global_model_set_by_a_loader_function_is_followed(tmp_path):
    path = tmp_path / "server.py"
    path.write_text(SERVER.format(declare="    global model\n"))
    assert found(path) == {("GL504", line_of(path, ".predict("))}
    path.write_text(SERVER.format(declare=""))  # a local of load_model(): the global stays None
    assert found(path) == set()


AGENT = """\
import numpy as np
{imports}

class Agent:
    def __init__(self):
        self.model = None

    def act(self, state):
        return int(np.argmax(self.model.predict(state, verbose=0)))


agent = Agent()
agent.model = {model}
state = np.zeros((1, 4))
for step in range(1000):
    agent.act(state)
"""

NETWORKS = """\
import keras


class Networks:
    @staticmethod
    def dqn(n_in, n_out):
        model = keras.Sequential([keras.Input(shape=(n_in,)), keras.layers.Dense(n_out)])
        return model

    @staticmethod
    def table(n_in, n_out):
        return {}
"""


@pytest.mark.parametrize(
    "model, reported",
    [("Networks.dqn(4, 2)", True), ("Networks.table(4, 2)", False)],
    ids=["a-keras-builder-of-another-module", "something-else"],
)
def test_a_model_given_to_the_agent_from_outside(tmp_path, model, reported):
    write_folder(tmp_path, {"networks.py": NETWORKS, "main.py": AGENT.format(imports="from networks import Networks\n", model=model)})
    path = tmp_path / "main.py"
    assert found("--no-cache", str(path)) == ({("GL504", line_of(path, ".predict("))} if reported else set())


GENERATOR = """\
import numpy as np
import keras


def build_inference_model(model):
    config = model.get_config()
    return {rebuild}


def generate_text(model, seed, length=512):
    out = []
    for i in range(length):
        probs = model.predict(np.array([[seed]]), verbose=0)
        seed = int(np.argmax(probs))
        out.append(seed)
    return out


class Sampler(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.inference_model = None

    def on_epoch_end(self, epoch, logs=None):
        if self.inference_model is None:
            self.inference_model = build_inference_model(self.model)
        generate_text(self.inference_model, 0)
"""


@pytest.mark.parametrize(
    "rebuild, reported",
    [
        ("keras.Sequential.from_config(config)", True),
        ("keras.models.model_from_json(model.to_json())", True),
        ("config", False),
    ],
    ids=["from-config", "from-json", "not-a-model"],
)
def test_a_model_rebuilt_from_its_config_and_kept_on_the_callback(tmp_path, rebuild, reported):
    """The model comes from a loader through a builder, an attribute that starts as ``None``
    and a parameter; the nested list ``np.array([[seed]])`` is one row."""
    path = tmp_path / "generate.py"
    path.write_text(GENERATOR.format(rebuild=rebuild))
    assert found(path) == ({("GL504", line_of(path, ".predict("))} if reported else set())


@pytest.mark.parametrize(
    "scale, reported",
    [
        ("x = x / float(n_vocab)", True),
        ("x /= 255.0", True),
        ("x = x / np.ones((16, 4, 3))", False),  # an array: broadcasting may give more rows
        ("x += np.ones((16, 4, 3))", False),
    ],
    ids=["divided-by-float", "in-place-number", "divided-by-array", "in-place-array"],
)
def test_a_one_row_sample_rescaled_by_a_number(tmp_path, scale, reported):
    path = tmp_path / "compose.py"
    path.write_text(HEADER + textwrap.dedent(f"""\
        n_vocab = 58
        pattern = np.ones((4, 3))
        for note in range(500):
            x = np.reshape(pattern, (1, 4, 3))
            {scale}
            prediction = model.predict(x, verbose=0)
        """))
    assert found(path) == ({("GL504", line_of(path, ".predict("))} if reported else set())


WORKERS = """\
import threading
import numpy as np
import keras


class Worker(threading.Thread):
    def __init__(self, actor, steps):
        threading.Thread.__init__(self)
        self.actor = actor
        self.steps = steps

    def run(self):
        state = np.zeros(4)
        for step in range(self.steps):
            policy = self.actor.predict(np.reshape(state, [1, 4]), verbose=0)[0]


{made}
"""


@pytest.mark.parametrize(
    "made, reported",
    [
        ("actor = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])\n"
         "workers = [Worker(actor, 1000) for _ in range(4)]", True),
        ("workers = [Worker(lambda s: s, 1000) for _ in range(4)]", False),
        ("", False),  # never made: what the constructor is given cannot be told
    ],
    ids=["a-keras-model", "something-else", "no-construction"],
)
def test_a_model_given_to_the_constructor(tmp_path, made, reported):
    path = tmp_path / "a3c.py"
    path.write_text(WORKERS.format(made=made))
    assert found(path) == ({("GL504", line_of(path, ".predict("))} if reported else set())
