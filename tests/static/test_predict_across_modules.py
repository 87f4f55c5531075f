"""GL504's static form across the modules of a tree (issue 24): an agent's method that makes its
one-row sample itself (``observation[np.newaxis, :]``) and predicts on it, called per step by
the loop of another module that imports the agent's class. The finding stays at the ``predict``
line, with the other module's call and loop related; a caller that calls it once, a loop that
runs a few times, an object whose class is not certainly the agent's and a batch per call stay
silent. Static only (the programs need an environment that is not there)."""

from __future__ import annotations

import textwrap

import pytest

from harness import SAMPLES, check_json, expected_markers, found, write_folder

AGENT = """\
import numpy as np
import keras


class Agent:
    def __init__(self, n_actions):
        self.q_eval = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(n_actions)])

    def choose_action(self, observation):
        state = observation[np.newaxis, :]
        actions = self.q_eval.predict(state, verbose=0)  # GL504
        return int(np.argmax(actions))

    def choose_actions(self, observations):
        return np.argmax(self.q_eval.predict(observations, verbose=0), axis=1)
"""

PER_STEP = """\
import numpy as np

from agent import Agent

agent = Agent(n_actions=4)
for episode in range(500):
    observation = np.zeros(8)
    done = False
    while not done:
        action = agent.choose_action(observation)
        observation, done = np.random.rand(8), np.random.rand() < 0.01
"""


def tree(tmp_path, main: str, agent: str = AGENT):
    write_folder(tmp_path, {"agent.py": agent, "main.py": textwrap.dedent(main)})
    return tmp_path / "agent.py"


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


PREDICT = line_of(AGENT, "# GL504")


def test_the_step_loop_of_another_module_is_the_callers(tmp_path):
    """The agent's module alone is checked: its importer's loop is found in the tree."""
    path = tree(tmp_path, PER_STEP)
    code, findings = check_json("--no-cache", "--select", "GL504", str(path))
    assert code == 1
    [finding] = findings
    assert (finding["path"], finding["line"]) == (str(path), PREDICT)
    related = {(r["path"].rsplit("/", 1)[-1], r["line"], r["message"]) for r in finding["related"]}
    assert related == {
        ("main.py", line_of(PER_STEP, "agent.choose_action("), "called here"),
        ("main.py", line_of(PER_STEP, "while not done"), "the loop"),
    }
    assert "main.py" in finding["message"]


def test_the_whole_tree_reports_it_once(tmp_path):
    tree(tmp_path, PER_STEP)
    assert found("--no-cache", "--select", "GL504", str(tmp_path)) == {("GL504", PREDICT)}


@pytest.mark.parametrize(
    "main",
    [
        pytest.param(
            """\
            import numpy as np
            from agent import Agent

            agent = Agent(n_actions=4)
            action = agent.choose_action(np.zeros(8))
            """,
            id="called-once",
        ),
        pytest.param(
            """\
            import numpy as np
            from agent import Agent

            agent = Agent(n_actions=4)
            for step in range(5):
                action = agent.choose_action(np.zeros(8))
            """,
            id="loop-runs-at-most-max-calls",
        ),
        pytest.param(
            """\
            import numpy as np
            from agent import Agent

            agent = Agent(n_actions=4)
            for episode in range(500):
                actions = agent.choose_actions(np.zeros((64, 8)))
            """,
            id="caller-batches",
        ),
        pytest.param(
            """\
            import sys
            import numpy as np
            from agent import Agent
            from baseline import Random

            agent = Agent(n_actions=4) if sys.argv[1:] else Random()
            for episode in range(500):
                action = agent.choose_action(np.zeros(8))
            """,
            id="class-not-certain",
        ),
        pytest.param(
            """\
            import numpy as np


            class Agent:
                def choose_action(self, observation):
                    return 0


            agent = Agent()
            for episode in range(500):
                action = agent.choose_action(np.zeros(8))
            """,
            id="a-class-of-its-own",
        ),
    ],
)
def test_good_twins_stay_silent(tmp_path, main):
    path = tree(tmp_path, main)
    (tmp_path / "baseline.py").write_text("class Random:\n    def choose_action(self, observation):\n        return 0\n")
    assert found("--no-cache", "--select", "GL504", str(path)) == set()


def test_a_cached_result_follows_the_importer(tmp_path):
    """The importer is among what the analysis read: when it stops calling per step, the
    cached finding goes."""
    path = tree(tmp_path, PER_STEP)
    args = ("--select", "GL504", "--cache-dir", str(tmp_path / "cache"), str(path))
    assert found(*args) == {("GL504", PREDICT)}
    (tmp_path / "main.py").write_text(PER_STEP.replace("for episode in range(500):", "for episode in range(1):").replace(
        "while not done:", "if not done:"
    ))
    assert found(*args) == set()


def test_a_loop_just_past_max_calls_is_reported(tmp_path):
    """``max-calls`` (5) runs are allowed (the twin above); six are not."""
    main = "import numpy as np\nfrom agent import Agent\n\nagent = Agent(n_actions=4)\nfor step in range(6):\n    agent.choose_action(np.zeros(8))\n"
    path = tree(tmp_path, main)
    assert found("--no-cache", "--select", "GL504", str(path)) == {("GL504", PREDICT)}


ACROSS = SAMPLES / "across_modules"


def test_the_across_modules_samples():
    """The bad sample's agent is reported at its marker (in ``stepping_agent.py``); the good
    twin, whose agent calls the model directly, gives nothing."""
    agent = ACROSS / "stepping_agent.py"
    code, findings = check_json("--no-cache", "--select", "GL504", str(ACROSS))
    assert {(f["path"].rsplit("/", 1)[-1], f["code"], f["line"]) for f in findings} == {
        ("stepping_agent.py", code_, line) for code_, line in expected_markers(agent)
    }
    assert [r["path"].rsplit("/", 1)[-1] for r in findings[0]["related"]] == ["gl504_bad_across_modules.py"] * 2
    assert found("--no-cache", "--select", "GL504", str(ACROSS / "gl504_good_across_modules.py")) == set()


# -- a model that is an attribute of another module's object --------------------------------------
NETWORK = """\
import keras


class ActorNetwork:
    def __init__(self, n_obs, n_act):
        self.model, self.weights = self.build(n_obs, n_act)
        self.scale = {scale}

    def build(self, n_obs, n_act):
        model = keras.Sequential([keras.Input(shape=(n_obs,)), keras.layers.Dense(n_act)])
        return model, model.trainable_weights
"""

DRIVER = """\
import numpy as np

from network import ActorNetwork

actor = ActorNetwork(8, 2)
for step in range(1000):
    state = np.random.rand(8)
    action = actor.{attr}.predict(state.reshape(1, 8))
"""


def network_tree(tmp_path, attr="model", driver=DRIVER, scale="1.0"):
    write_folder(tmp_path, {"network.py": NETWORK.format(scale=scale), "main.py": driver.format(attr=attr)})
    return tmp_path / "main.py"


def test_the_model_of_an_object_of_another_modules_class_is_followed(tmp_path):
    path = network_tree(tmp_path)
    assert found("--no-cache", "--select", "GL504", str(path)) == {("GL504", line_of(DRIVER, ".predict("))}


@pytest.mark.parametrize(
    "attr, driver, scale",
    [
        ("scale", DRIVER, "keras.Sequential()"),  # a model only if every assignment makes one
        ("scale", DRIVER, "1.0"),
        ("model", DRIVER.replace("actor = ActorNetwork(8, 2)", "actor = ActorNetwork(8, 2) if np.random.rand() > 0.5 else None"), "1.0"),
        ("model", DRIVER.replace("from network import ActorNetwork", "from elsewhere import ActorNetwork"), "1.0"),
    ],
    ids=["not-only-a-model", "not-a-model", "class-not-certain", "class-not-in-the-tree"],
)
def test_an_attribute_not_certainly_a_model_stays_silent(tmp_path, attr, driver, scale):
    path = network_tree(tmp_path, attr, driver, scale.replace("keras.Sequential()", "keras.Sequential() if n_obs else 1.0"))
    assert found("--no-cache", "--select", "GL504", str(path)) == set()


def test_a_script_beside_a_folder_without_init_imports_it(tmp_path):
    """``agent/`` without ``__init__.py`` is a namespace package: ``from agent.core import
    Agent`` in ``main.py`` beside it is the agent's importer."""
    write_folder(tmp_path, {"agent/core.py": AGENT, "main.py": PER_STEP.replace("from agent import Agent", "from agent.core import Agent")})
    path = tmp_path / "agent" / "core.py"
    assert found("--no-cache", "--select", "GL504", str(path)) == {("GL504", PREDICT)}


# -- a one-row sample made by a function of another module ----------------------------------------
UTILS = """\
import numpy as np
from keras.preprocessing import sequence


def encode(text, vocab, maxlen):
    encoded = np.array([vocab.get(c, 0) for c in text])
    return {ret}
"""

ENCODER = """\
import keras

from utils import encode

model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(2)])
vectors = []
for text in open("texts.txt").read().split():
    vectors.append(model.predict(encode(text, {{}}, 8), verbose=0))
"""


@pytest.mark.parametrize(
    "ret, reported",
    [
        ("sequence.pad_sequences([encoded], maxlen=maxlen)", True),
        ("sequence.pad_sequences(encoded, maxlen=maxlen)", False),
        ("text", False),  # a parameter: its callers are in other modules, not judged there
    ],
    ids=["one-padded-text", "the-rows-given", "a-parameter"],
)
def test_a_sample_made_by_a_helper_of_another_module(tmp_path, ret, reported):
    write_folder(tmp_path, {"utils.py": UTILS.format(ret=ret), "main.py": ENCODER.format()})
    path = tmp_path / "main.py"
    assert found("--no-cache", "--select", "GL504", str(path)) == ({("GL504", line_of(ENCODER, ".predict("))} if reported else set())


# -- a one-row sample passed through a function of another module that keeps its rows --------
PREPROCESSOR = """\
def preprocess_input(x, v2=True):
    x = x.astype('float32')
    x = x / 255.0
    if v2:
        x = x - 0.5
        x = x * 2.0
    return {ret}
"""

FACES = """\
import numpy as np
from keras.models import load_model

from utils.preprocessor import preprocess_input

model = load_model("faces.h5")
for face in np.ones((100, 48, 48, 3)):
    {row}
    face = preprocess_input(face, False)
    label = np.argmax(model.predict(face))
"""


@pytest.mark.parametrize(
    "row, ret, reported",
    [
        ("face = np.expand_dims(face, 0)", "x", True),
        ("face = face[None]", "x.reshape(x.shape + (1,))", True),
        ("face = np.expand_dims(face, -1)", "x", False),  # a face of 48 rows
        ("face = np.expand_dims(face, 0)", "x.sum(axis=0)", False),  # what that gives is not told
        ("face = np.expand_dims(face, 0)", "np.concatenate([x, x])", False),  # two rows
    ],
    ids=["kept-rows", "kept-rows-reshaped", "not-one-row-given", "rows-not-kept", "rows-joined"],
)
def test_a_helper_of_another_module_keeps_the_rows_it_is_given(tmp_path, row, ret, reported):
    """Held-out set 9 (face_classification's webcam demo): ``np.expand_dims(face, 0)`` then the
    repository's own ``preprocess_input(face, False)``, which casts and scales its ``x``: the
    same one face, scored per face of every frame."""
    utils = PREPROCESSOR.format(ret=ret)
    if "np." in ret:
        utils = "import numpy as np\n\n\n" + utils
    main = FACES.format(row=row)
    write_folder(tmp_path, {"utils/__init__.py": "", "utils/preprocessor.py": utils, "main.py": main})
    path = tmp_path / "main.py"
    assert found("--no-cache", "--select", "GL504", str(path)) == ({("GL504", line_of(main, ".predict("))} if reported else set())


# -- a model unpacked from what a builder of another module returns ------------------------------
RNN_BUILDER = """\
from keras.layers import Dense, Input
from keras.models import Model


def create_network(n_notes, use_attention=False):
    notes = Input(shape=(None,))
    durations = Input(shape=(None,))
    out = Dense(n_notes)(notes)
    model = Model([notes, durations], out)
    {second}
    return {ret}
"""

COMPOSER = """\
import numpy as np

from models.rnn import create_network

model, second = create_network(8, use_attention=True)
notes, durations = [1, 2], [3, 4]
for step in range(50):
    prediction = {receiver}.predict([np.array([notes]), np.array([durations])], verbose=0)
    notes.append(int(np.argmax(prediction)))
"""


@pytest.mark.parametrize(
    "second, ret, receiver, reported",
    [
        ("history = {}", "model, history", "model", True),
        ("att_model = Model([notes, durations], out) if use_attention else None", "model, att_model", "second", True),
        ("if use_attention:\n        att_model = Model([notes, durations], out)\n    else:\n        att_model = None", "model, att_model", "second", True),
        ("if use_attention:\n        att_model = {}\n    else:\n        att_model = None", "model, att_model", "second", False),
        ("history = {}", "model, history", "second", False),  # a dict, not a model
        ("history = {}", "history, model", "model", False),  # the model is the other part
        ("history = {}", "(model, history) if n_notes else (history, model)", "model", False),  # not a tuple
    ],
    ids=["first-part", "a-model-or-none", "a-model-or-none-by-branch", "none-or-a-dict", "not-a-model", "other-part", "not-told"],
)
def test_a_model_unpacked_from_a_builder_of_another_module(tmp_path, second, ret, receiver, reported):
    """Held-out set 10 (GDL_code's music notebook): ``model, att_model = create_network(...)``
    imported from ``models/RNNAttention.py``, then a one-row ``predict`` per generated note."""
    main = COMPOSER.format(receiver=receiver)
    write_folder(tmp_path, {"models/rnn.py": RNN_BUILDER.format(second=second, ret=ret), "main.py": main})
    path = tmp_path / "main.py"
    assert found("--no-cache", "--select", "GL504", str(path)) == ({("GL504", line_of(main, ".predict("))} if reported else set())


# -- an importer elsewhere in the package: the package rule of imports, read backwards ---------------
@pytest.mark.parametrize(
    "script, imports, reported",
    [
        ("rl/scripts/train.py", "from rl.agents.dqn import Agent", True),  # a sibling folder of the package
        ("rl/train.py", "from rl.agents.dqn import Agent", True),  # the package's own folder
        ("rl/scripts/train.py", "from agents.dqn import Agent", False),  # no such module from there
    ],
    ids=["sibling-folder", "package-folder", "import-leads-elsewhere"],
)
def test_an_importer_elsewhere_in_a_package_without_init(tmp_path, script, imports, reported):
    """``rl/agents/dqn.py`` of a tree without ``__init__.py`` files is imported as
    ``rl.agents.dqn`` by ``rl/scripts/train.py`` run from the folder above ``rl`` (as
    spinningup's ``spinup.utils.logx`` is): checked alone, the agent's module finds that
    importer's step loop."""
    write_folder(tmp_path, {"rl/agents/dqn.py": AGENT, script: PER_STEP.replace("from agent import Agent", imports)})
    path = tmp_path / "rl" / "agents" / "dqn.py"
    assert found("--no-cache", "--select", "GL504", str(path)) == ({("GL504", PREDICT)} if reported else set())


# -- a model from another module through a star import or as that module's value -----------------
NETS = """\
import keras

__all__ = {exported}


def build_unet(n):
    return keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(n)])


model = {model}
"""

FRAMES = """\
import numpy as np
{imports}
{made}
for frame in np.ones((100, 8)):
    scores = {receiver}.predict(frame[None], verbose=0)
"""

_A_MODEL = "keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(2)])"


@pytest.mark.parametrize(
    "imports, made, receiver, model, exported, reported",
    [
        ("from nets import *", "unet = build_unet(2)", "unet", _A_MODEL, "['build_unet', 'model']", True),
        ("from nets import *", "", "model", _A_MODEL, "['build_unet', 'model']", True),
        ("from nets import model", "", "model", _A_MODEL, "['build_unet', 'model']", True),
        ("import nets", "", "nets.model", _A_MODEL, "['build_unet', 'model']", True),
        ("from nets import *", "unet = build_unet(2)", "unet", _A_MODEL, "['model']", False),  # not exported
        ("from nets import *", "def build_unet(n):\n    return object()\nunet = build_unet(2)", "unet", _A_MODEL,
         "['build_unet', 'model']", False),  # the file's own function
        ("from nets import model", "", "model", "None", "['build_unet', 'model']", False),  # not a model
        ("from nets import *", "model = object()", "model", _A_MODEL, "['build_unet', 'model']", False),  # rebound here
    ],
    ids=["star-builder", "star-model", "imported-model", "module-attribute", "not-exported", "own-function",
         "not-a-model", "rebound"],
)
def test_a_model_from_another_module_by_star_import_or_value(tmp_path, imports, made, receiver, model, exported, reported):
    """unet's notebooks (held-out set 10) take ``unet()`` by ``from model import *``; a
    model another module makes at its top is the same model wherever it is imported."""
    main = FRAMES.format(imports=imports, made=made, receiver=receiver)
    write_folder(tmp_path, {"nets.py": NETS.format(exported=exported, model=model), "main.py": main})
    path = tmp_path / "main.py"
    assert found("--no-cache", "--select", "GL504", str(path)) == ({("GL504", line_of(main, ".predict("))} if reported else set())


# -- an object a factory of another module makes of the class it is given ---------------------------
VAE = """\
import keras


class VariationalAutoencoder:
    def __init__(self, z_dim):
        inputs = keras.Input(shape=(z_dim,))
        self.decoder = keras.Model(inputs, keras.layers.Dense(4)(inputs))
"""

LOADERS = """\
import os
import pickle


def load_model(model_class, folder):
    with open(os.path.join(folder, "params.pkl"), "rb") as f:
        params = pickle.load(f)
    {made}
    model.load_weights(os.path.join(folder, "weights.h5"))
    return model
"""

MORPH = """\
import numpy as np

from models.vae import VariationalAutoencoder
from utils.loaders import load_model

vae = load_model({cls}, "run")
z = np.zeros(4)
for factor in np.arange(0, 1, 0.1):
    image = vae.decoder.predict(np.array([z * factor]))[0]
"""


@pytest.mark.parametrize(
    "made, cls, reported",
    [
        ("model = model_class(*params)", "VariationalAutoencoder", True),
        ("model = model_class(*params)", "dict", False),  # not a class of the tree
        ("model = pickle.load(f)", "VariationalAutoencoder", False),  # not made of the class given
        ("model_class = dict\n    model = model_class(*params)", "VariationalAutoencoder", False),  # rebound
    ],
    ids=["the-class-given", "a-builtin-given", "not-made-of-it", "parameter-rebound"],
)
def test_an_object_a_factory_of_another_module_makes_of_the_class_given(tmp_path, made, cls, reported):
    """Held-out set 10 (GDL_code's VAE notebooks): ``vae = load_model(VariationalAutoencoder,
    RUN_FOLDER)`` from ``utils/loaders.py``, which returns ``model_class(*params)``, then
    ``vae.decoder.predict`` on one latent point per factor."""
    main = MORPH.format(cls=cls)
    write_folder(tmp_path, {"models/vae.py": VAE, "utils/loaders.py": LOADERS.format(made=made), "main.py": main})
    path = tmp_path / "main.py"
    assert found("--no-cache", "--select", "GL504", str(path)) == ({("GL504", line_of(main, ".predict("))} if reported else set())


# -- a web route of another module, through a package's re-export -----------------------------------
SERVE = """\
import numpy as np
import tensorflow as tf

model = None


def predict(image):
    global model
    if model is None:
        model = tf.keras.applications.MobileNetV2(weights="imagenet")
    image = np.expand_dims(np.asarray(image), 0)
    return model.predict(image)
"""

ROUTES = """\
from fastapi import FastAPI

from application.components import predict

app = FastAPI()


{decorator}
async def predict_api(image):
    return predict(image)
"""


@pytest.mark.parametrize(
    "init, decorator, reported",
    [
        ("from .prediction.serve_model import predict", '@app.post("/predict/image")', True),
        ("from application.components.prediction.serve_model import predict", '@app.post("/predict/image")', True),
        ("from .prediction.serve_model import predict", "", False),  # not a route: called by nobody here
        ("", '@app.post("/predict/image")', False),  # the package re-exports nothing
    ],
    ids=["relative-re-export", "absolute-re-export", "not-a-route", "no-re-export"],
)
def test_a_route_of_another_module_through_a_package_re_export(tmp_path, init, decorator, reported):
    """Held-out set 5 (tensorflow-web-app-starter-pack): the FastAPI route of
    ``application/server/main.py`` calls ``predict`` imported from ``application.components``,
    whose ``__init__.py`` re-exports it from ``prediction/serve_model.py``: a one-image predict
    per request, found when the serving module is checked."""
    files = {
        "application/__init__.py": "",
        "application/components/__init__.py": init,
        "application/components/prediction/serve_model.py": SERVE,
        "application/server/main.py": ROUTES.format(decorator=decorator),
    }
    write_folder(tmp_path, files)
    path = tmp_path / "application" / "components" / "prediction" / "serve_model.py"
    assert found("--no-cache", "--select", "GL504", str(path)) == ({("GL504", line_of(SERVE, ".predict("))} if reported else set())


@pytest.mark.parametrize(
    "decorator, reported",
    [('@app.route("/getData", methods=["POST"])', True), ("", False)],
    ids=["flask-route", "a-plain-function"],
)
def test_a_route_of_the_package_calls_a_one_sample_predict(tmp_path, decorator, reported):
    """Held-out set 2 (flask-tensorflow-MNIST): the Flask route of the package's
    ``__init__.py`` calls the serving module's function per request, no loop anywhere."""
    route = f"from flask import Flask\n\nfrom .serve_model import predict\n\napp = Flask(__name__)\n\n\n{decorator}\ndef get_data(image):\n    return predict(image)\n"
    write_folder(tmp_path, {"flaskapp/__init__.py": route, "flaskapp/serve_model.py": SERVE})
    path = tmp_path / "flaskapp" / "serve_model.py"
    assert found("--no-cache", "--select", "GL504", str(path)) == ({("GL504", line_of(SERVE, ".predict("))} if reported else set())


SEGMENTATION_MODEL = """\
from tensorflow.keras.layers import Conv2D, Input
from tensorflow.keras.models import Model


def fcn_8(n_classes, input_height=416, input_width=608):
    img_input = Input(shape=(input_height, input_width, 3))
    return Model(img_input, Conv2D(n_classes, (1, 1))(img_input))
"""

LAZY_LOADER = """\
import numpy as np


def model_from_checkpoint_path(checkpoints_path):
    from .models import fcn  # a lazy import, inside the loader
    model = fcn.fcn_8(2)
    model.load_weights(checkpoints_path)
    return model


def predict(model=None, inp=None, checkpoints_path=None):
    if model is None and checkpoints_path is not None:
        model = model_from_checkpoint_path(checkpoints_path)
    pr = model.predict(np.array([inp / 255.0]))[0]  # GL504
    return pr.argmax(axis=2)


def predict_multiple(model=None, inps=None, checkpoints_path=None):
    if model is None and checkpoints_path is not None:
        model = model_from_checkpoint_path(checkpoints_path)
    return [predict(model, inp) for inp in inps]


def predict_all(model=None, inps=None, checkpoints_path=None):
    if model is None and checkpoints_path is not None:
        model = model_from_checkpoint_path(checkpoints_path)
    return model.predict(np.stack(inps) / 255.0).argmax(axis=3)
"""


@pytest.mark.parametrize("batched", [False, True])
def test_a_model_a_lazy_relative_import_makes(tmp_path, batched):
    """``from .models import fcn`` inside the loader is followed like the same import at the
    module's top (an absolute one is, wherever it is): a one-image ``predict`` per item of a
    loop is found; the twin that predicts the stacked images once stays silent."""
    loader = LAZY_LOADER
    if batched:
        loader = loader.replace("return [predict(model, inp) for inp in inps]", "return predict_all(model, inps)")
    write_folder(tmp_path, {"seg/__init__.py": "", "seg/models/__init__.py": "", "seg/models/fcn.py": SEGMENTATION_MODEL, "seg/predict.py": loader})
    expected = set() if batched else {("GL504", line_of(LAZY_LOADER, "# GL504"))}
    assert found("--no-cache", "--select", "GL504", str(tmp_path / "seg")) == expected


MODEL_UTILS = """\
from tensorflow.keras.models import Model


def get_segmentation_model(img_input, output):
    model = Model(img_input, output)
    model.n_classes = int(output.shape[-1])
    return model


def get_features(img_input, output):
    return {"input": img_input, "output": output}
"""

FCN_THROUGH_A_HELPER = """\
from tensorflow.keras.layers import Conv2D, Input

from .model_utils import get_segmentation_model


def fcn_8(n_classes, input_height=416, input_width=608):
    img_input = Input(shape=(input_height, input_width, 3))
    o = Conv2D(n_classes, (1, 1))(img_input)
    model = get_segmentation_model(img_input, o)
    return model
"""

PER_IMAGE = """\
import numpy as np

from .models import fcn


def predict(model, inp):
    return model.predict(np.array([inp / 255.0]))[0].argmax(axis=2)  # GL504


def predict_multiple(inps):
    model = fcn.fcn_8(2)
    return [predict(model, inp) for inp in inps]
"""


@pytest.mark.parametrize("helper", ["get_segmentation_model", "get_features"])
def test_a_builder_elsewhere_whose_helper_makes_the_model(tmp_path, helper):
    """``fcn.fcn_8()`` of another module returns what its own helper (of a third module) makes:
    ``Model(...)`` there, so a one-image ``predict`` per item of a loop on it is found; a helper
    that returns a dict of the tensors makes no model, and the same loop stays silent."""
    fcn = FCN_THROUGH_A_HELPER.replace("get_segmentation_model", helper)
    write_folder(tmp_path, {
        "seg/__init__.py": "", "seg/models/__init__.py": "", "seg/models/model_utils.py": MODEL_UTILS,
        "seg/models/fcn.py": fcn, "seg/predict.py": PER_IMAGE,
    })
    expected = {("GL504", line_of(PER_IMAGE, "# GL504"))} if helper == "get_segmentation_model" else set()
    assert found("--no-cache", "--select", "GL504", str(tmp_path / "seg")) == expected


UNET = """\
from tensorflow.keras.layers import Conv2D, Input
from tensorflow.keras.models import Model


def unet(n_classes):
    img_input = Input(shape=(416, 608, 3))
    return Model(img_input, Conv2D(n_classes, (1, 1))(img_input))


def features(n_classes):
    return {"n_classes": n_classes}
"""

REGISTRY = """\
from . import fcn, unet

model_from_name = {"unet": unet.unet}
model_from_name["fcn_8"] = fcn.fcn_8
"""

FROM_A_REGISTRY = """\
import numpy as np


def model_from_checkpoint_path(model_class, checkpoints_path):
    from .models.all_models import model_from_name
    model = model_from_name[model_class](2)
    model.load_weights(checkpoints_path)
    return model


def predict(model=None, inp=None, model_class=None, checkpoints_path=None):
    if model is None:
        model = model_from_checkpoint_path(model_class, checkpoints_path)
    return model.predict(np.array([inp / 255.0]))[0].argmax(axis=2)  # GL504


def predict_multiple(inps, model_class, checkpoints_path):
    model = model_from_checkpoint_path(model_class, checkpoints_path)
    return [predict(model, inp) for inp in inps]
"""


@pytest.mark.parametrize("registry", ["models", "with-features", "filled-in-a-function"])
def test_a_model_from_a_registry_of_builders(tmp_path, registry):
    """``model_from_name[key](...)``, a dict of builders another module fills at its top (a
    display and ``model_from_name["fcn_8"] = fcn.fcn_8``), every one making a Keras model: a
    one-image ``predict`` per item of a loop on what it makes is found. A registry that also
    holds a builder of something else, or that a function fills too, cannot say what it
    makes: silent."""
    table = REGISTRY
    if registry == "with-features":
        table += 'model_from_name["features"] = unet.features\n'
    elif registry == "filled-in-a-function":
        table += "\n\ndef register(name, fn):\n    model_from_name[name] = fn\n"
    write_folder(tmp_path, {
        "seg/__init__.py": "", "seg/models/__init__.py": "", "seg/models/model_utils.py": MODEL_UTILS,
        "seg/models/fcn.py": FCN_THROUGH_A_HELPER, "seg/models/unet.py": UNET, "seg/models/all_models.py": table,
        "seg/predict.py": FROM_A_REGISTRY,
    })
    expected = {("GL504", line_of(FROM_A_REGISTRY, "# GL504"))} if registry == "models" else set()
    assert found("--no-cache", "--select", "GL504", str(tmp_path / "seg")) == expected
