"""GL504's static form on a class that wraps a Keras model (``def predict(self, x): return
self.model.predict(x)``), as DQN code writes it (held-out set 8): a setter the file never calls
does not hide what the class builds, a row joined side by side (``np.hstack``) stays one row,
and a wrapper called on one sample through a method of the caller's names every such caller.
Each bad shape has a twin that differs only where the rule must look, and stays silent."""

from __future__ import annotations

import json

from harness import check_json, found, line_of, write_folder

WRAPPER = """\
import numpy as np
from tensorflow import keras


class QNet:
    def __init__(self, n):
        self.model = keras.Sequential([keras.layers.Dense(n)])

    def predict(self, x):
        return self.model.predict(x)

    def update_model(self, model):
        self.model = model


class Agent:
    def __init__(self):
        self.q = QNet(4)

    def act(self, state):
        return np.argmax(self.q.predict(state))


agent = Agent()
state = np.zeros(4)
for step in range(1000):
    action = agent.act(state.reshape(1, -1))
"""


def test_a_setter_no_code_calls_leaves_the_model_known(tmp_path):
    path = tmp_path / "agent.py"
    path.write_text(WRAPPER)
    assert found(path) == {("GL504", line_of(path, "self.model.predict("))}


def test_a_setter_the_file_calls_with_something_else_makes_it_unknown(tmp_path):
    path = tmp_path / "agent.py"
    path.write_text(WRAPPER + "agent.q.update_model(object())\n")
    assert found(path) == set()


STACKED = """\
import numpy as np
from tensorflow import keras

model = keras.Sequential([keras.layers.Dense(1)])
state = np.zeros(4)
for step in range(1000):
    for a in range(3):
        scores = model.predict(np.hstack([{state}, np.zeros(2).reshape(1, -1)]))
"""


def test_a_row_joined_side_by_side_is_one_row(tmp_path):
    path = tmp_path / "stacked.py"
    path.write_text(STACKED.format(state="state.reshape(1, -1)"))
    assert found(path) == {("GL504", line_of(path, ".predict("))}
    path.write_text(STACKED.format(state="np.zeros((32, 4))").replace(".reshape(1, -1)", ".reshape(32, -1)"))
    assert found(path) == set()


CHAIN = """\
import numpy as np
from tensorflow import keras


class QNet:
    def __init__(self):
        self.model = keras.Sequential([keras.layers.Dense(2)])

    def predict(self, x):
        return self.model.predict(x)


class Learner:
    def __init__(self):
        self.q = QNet()

    def sample_action(self, state):
        return np.argmax(self.q.predict(state))

    def move(self, state):
        return np.argmax(self.q.predict(state))

    def train(self):
        for step in range(1000):
            self.sample_action({sample})

    def play(self):
        for step in range(1000):
            self.move(np.zeros(4).reshape(1, -1))


def sample_action(state):
    return learner.sample_action(state)


learner = Learner()
"""


def test_a_wrapper_names_every_caller_that_repeats_it_on_one_sample(tmp_path):
    """``sample_action`` has a caller of unknown input (the module-level helper) beside the
    one-sample step loop: the step loop still counts, and both loops are named."""
    path = tmp_path / "learner.py"
    path.write_text(CHAIN.format(sample="np.zeros(4).reshape(1, -1)"))
    _, findings = check_json(path)
    (finding,) = findings
    assert (finding["code"], finding["line"]) == ("GL504", line_of(path, "self.model.predict("))
    related = [(r["line"], r["message"]) for r in finding["related"]]
    for needle in ("self.q.predict(state))", "self.sample_action(", "self.move("):
        for n in range(1, 3 if needle.startswith("self.q") else 2):
            assert (line_of(path, needle, n), "called here") in related, json.dumps(finding, indent=1)
    assert [m for _, m in related].count("the loop") == 2


def test_a_wrapper_called_only_on_batches_is_not_reported(tmp_path):
    path = tmp_path / "learner.py"
    source = CHAIN.format(sample="np.zeros((32, 4))").replace("np.zeros(4).reshape(1, -1)", "np.zeros((32, 4))")
    path.write_text(source)
    assert found(path) == set()


ACTOR = """\
import numpy as np
from tensorflow import keras


class Actor:
    def __init__(self):
        self.model = keras.Sequential([keras.layers.Dense(4)])

    def act(self, state):
        return np.argmax(self.model.predict(state)[0])
"""

ENV = """\
import numpy as np


class Env:
    def reset(self):
        return np.zeros(8)

    def preprocess(self, observation):
        return np.array(observation).{shape}
"""

PLAY = """\
from actor import Actor
from env import Env

env, actor = Env(), Actor()
for episode in range(500):
    state = env.preprocess(env.reset())
    for step in range(200):
        action = actor.act(state)
        state = env.preprocess(env.reset())
"""


def test_a_sample_another_module_makes_is_followed_to_the_wrapper(tmp_path):
    """The loop of one module passes the agent of a second the state a third one reshapes to
    one row: the finding is at the agent's ``predict``, the loop and its call related; the same
    tree with a batch of states stays silent."""
    write_folder(tmp_path, {"actor.py": ACTOR, "env.py": ENV.format(shape="reshape(1, -1)"), "play.py": PLAY})
    actor, play = tmp_path / "actor.py", tmp_path / "play.py"
    _, findings = check_json(tmp_path)
    assert [(f["code"], f["path"], f["line"]) for f in findings] == [("GL504", str(actor), line_of(actor, ".predict("))]
    related = {(r["path"], r["line"], r["message"]) for r in findings[0]["related"]}
    assert related == {(str(play), line_of(play, "actor.act("), "called here"), (str(play), line_of(play, "for step"), "the loop")}
    write_folder(tmp_path, {"actor.py": ACTOR, "env.py": ENV.format(shape="reshape(32, -1)"), "play.py": PLAY})
    assert check_json(tmp_path)[1] == []
