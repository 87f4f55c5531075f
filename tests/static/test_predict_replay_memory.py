"""GL504's static form on a replay memory (issue 24): a part of a sampled transition is one row
when every ``.append`` into the memory stores one row there; any other way in (``extend``,
``memory[i] = x``, another list assigned, the memory given to a function or another name) or a
stored batch keeps it silent. Static only."""

from __future__ import annotations

import textwrap

import pytest

from harness import found, line_of

PROGRAM = """\
import random
from collections import deque

import numpy as np
import keras


class Agent:
    def __init__(self):
        self.memory = deque(maxlen=100)
        self.model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])

    def remember(self, state, reward):
        self.memory.append((state, reward))

    def replay(self, n):
        {read}
            q = self.model.predict(state, verbose=0)
            q[0, 0] = reward
{extra}

agent = Agent()
for t in range(50):
    agent.remember({stored}, 1.0)
agent.replay(8)
"""

LOOP = "for state, reward in random.sample(self.memory, n):"
INDEXED = "for i in range(n):\n            state, reward = self.memory[i]"
PART = "for i in range(n):\n            state, reward = self.memory[i][0], 0.0"


def write(tmp_path, read=LOOP, stored="np.ones((1, 4))", extra=""):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM.format(read=read, stored=stored, extra=textwrap.indent(extra, "    ")))
    return path


@pytest.mark.parametrize("read", [LOOP, INDEXED, PART], ids=["loop", "indexed", "part"])
def test_a_stored_row_predicted_per_transition_is_reported(tmp_path, read):
    path = write(tmp_path, read=read)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if ".predict(" in text)
    assert found(path) == {("GL504", line)}


@pytest.mark.parametrize("stored", ["np.ones((8, 4))", "np.ones(4)"], ids=["batch", "unshaped"])
def test_a_stored_batch_or_unknown_shape_is_silent(tmp_path, stored):
    assert found(write(tmp_path, stored=stored)) == set()


@pytest.mark.parametrize(
    "extra",
    [
        "def more(self, rows):\n    self.memory.extend(rows)\n",
        "def put(self, i, row):\n    self.memory[i] = (row, 0.0)\n",
        "def reset(self, old):\n    self.memory = old\n",
        "def fill(self):\n    load(self.memory)\n\n\ndef load(memory):\n    pass\n",
        "def more(self, rows):\n    buffer = self.memory\n    buffer.append((rows, 0.0))\n",
    ],
    ids=["extend", "setitem", "assigned", "passed", "aliased"],
)
def test_a_memory_filled_another_way_is_silent(tmp_path, extra):
    assert found(write(tmp_path, extra=extra)) == set()


# -- steps stored by a method nobody in the file calls -----------------------------------------
# A script cut off before its episode loop, or a learner driven from elsewhere: nothing says what
# ``state`` is, but a tuple of at least four parts appended per call is one environment step, and
# a ``predict`` whose row 0 is all that is used scores one step at a time.
STEPS = """\
import random
from collections import deque

import numpy as np
import keras


class Agent:
    def __init__(self):
        self.memory = deque(maxlen=2000)
        self.model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])

    def remember(self, {params}):
        self.memory.append(({params}))

    def replay(self, n):
        batch = random.sample(self.memory, min(n, len(self.memory)))
        for i in range(len(batch)):
            state, action, reward, next_state{done} = batch[i]
            target = {use}
"""


def steps(tmp_path, params="state, action, reward, next_state, done", use="self.model.predict(state)[0]"):
    done = ", done" if params.endswith("done") else ""
    path = tmp_path / "agent.py"
    path.write_text(STEPS.format(params=params, done=done, use=use))
    return path


@pytest.mark.parametrize(
    "params, use",
    [
        ("state, action, reward, next_state, done", "self.model.predict(state)[0]"),
        ("state, action, reward, next_state", "self.model.predict(next_state)[0][action]"),
        ("state, action, reward, next_state, done", "self.model.predict(state)\n            target[0][action] = reward"),
    ],
    ids=["five-parts", "four-parts", "row-read-later"],
)
def test_a_stored_step_scored_alone_is_reported(tmp_path, params, use):
    path = steps(tmp_path, params, use)
    assert found(path) == {("GL504", line_of(path, ".predict("))}


@pytest.mark.parametrize(
    "params, use",
    [
        ("state, action, reward", "self.model.predict(state)[0]"),
        ("state, action, reward, next_state, done", "self.model.predict(state)"),
        ("state, action, reward, next_state, done", "self.model.predict(state).max()"),
        ("state, action, reward, next_state, done", "self.model.predict(state)[1]"),
    ],
    ids=["three-parts-no-step", "row-never-read", "whole-result-used", "another-row"],
)
def test_a_stored_value_not_shown_to_be_one_step_is_silent(tmp_path, params, use):
    assert found(steps(tmp_path, params, use)) == set()


def test_a_step_stored_as_a_batch_is_silent(tmp_path):
    """What the callers store is known and is not one row: the step rule does not override it."""
    path = steps(tmp_path)
    path.write_text(path.read_text() + "\nagent = Agent()\nfor t in range(50):\n    agent.remember(np.ones((8, 4)), 0, 1.0, np.ones((8, 4)), False)\n")
    assert found(path) == set()


# -- a target model known only by the weights it is given ------------------------------------
COPY = """\
import numpy as np
import keras


class Agent:
    def __init__(self):
        self.model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])
        self.update_target()

    def update_target(self):
        self.target_model.set_weights({source}.get_weights())

    def act(self, states):
        for state in states:
            print(self.target_model.predict(np.reshape(state, [1, 4]))[0])
"""


def test_a_model_given_a_keras_models_weights_is_a_keras_model(tmp_path):
    path = tmp_path / "agent.py"
    path.write_text(COPY.format(source="self.model"))
    assert found(path) == {("GL504", line_of(path, ".predict("))}


def test_a_model_given_weights_of_something_else_is_not_known(tmp_path):
    path = tmp_path / "agent.py"
    path.write_text(COPY.format(source="self.policy").replace("self.update_target()", "self.policy = make_policy()\n        self.update_target()"))
    assert found(path) == set()
