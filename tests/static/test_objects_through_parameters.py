"""Calls on the user's objects that reach their class's methods when the object comes through a
tuple assignment (``model, target = Net("model"), Net("target")``) or a parameter every caller
passes an object of one class for (``play_one(env, model, tmodel)``) — issue 24, held-out set 5:
a target network's ``copy_from()`` that builds an assign op per variable every 50 steps (GL102)
and an agent's ``act(state)`` per step on a scaler's one-row output (GL504). Static only."""

from __future__ import annotations

import pytest

from harness import found, line_of

NET = """\
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class Net:
    def __init__(self, name):
        with tf1.variable_scope(name):
            self.x = tf1.placeholder(tf.float32, [None, 4])
            self.w = tf1.get_variable("w", [4, 2])
            self.out = tf.matmul(self.x, self.w)
        self.params = [self.w]

    def set_session(self, session):
        self.session = session

    def copy_from(self, other):
        ops = []
        for p, q in zip(self.params, other.params):
            actual = self.session.run(q)
            ops.append(p.assign(actual))
        self.session.run(ops)


def play_one(model, tmodel, session, steps):
    for step in range(steps):
        session.run(model.out, {{model.x: np.ones((1, 4))}})
        if step % 50 == 0:
            tmodel.copy_from(model)


{make}
session = tf1.Session()
session.run(tf1.global_variables_initializer())
model.set_session(session)
tmodel.set_session(session)
play_one({passed})
"""


@pytest.mark.parametrize(
    "make, passed",
    [
        ('model, tmodel = Net("model"), Net("target")', "model, tmodel, session, 10000"),
        ('model = Net("model")\ntmodel = Net("target")', "model, tmodel, session, 10000"),
        ('model = Net("model")\ntmodel = Net("target")', "session=session, steps=10000, tmodel=tmodel, model=model"),
    ],
    ids=["tuple-assignment", "one-by-one", "keywords"],
)
def test_a_copy_built_per_call_through_a_parameter_is_reported(tmp_path, make, passed):
    path = tmp_path / "dqn.py"
    path.write_text(NET.format(make=make, passed=passed))
    assert found(path) == {("GL102", line_of(path, "p.assign("))}


@pytest.mark.parametrize(
    "make, passed",
    [
        ('model, tmodel = Net("model"), Net("target")\nother = object()', "model, other, session, 10000"),
        ('model, tmodel = [Net("model"), Net("target")][:2]', "model, tmodel, session, 10000"),
    ],
    ids=["another-object-passed", "unpacked-from-something-else"],
)
def test_a_parameter_not_certainly_of_the_class_is_not_followed(tmp_path, make, passed):
    path = tmp_path / "dqn.py"
    path.write_text(NET.format(make=make, passed=passed))
    assert found(path) == set()


AGENT = """\
import numpy as np
import keras
from sklearn.preprocessing import StandardScaler


class Agent:
    def __init__(self):
        self.model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])

    def act(self, state):
        return int(np.argmax(self.model.predict(state, verbose=0)[0]))


def play_one_episode(agent, scaler, steps):
    state = scaler.transform([np.zeros(4)])
    for t in range(steps):
        action = agent.act(state)
        state = scaler.transform([np.random.rand(4)])


agent = {agent}
scaler = StandardScaler().fit(np.random.rand(100, 4))
for episode in range(100):
    play_one_episode(agent, scaler, 200)
"""


@pytest.mark.parametrize("agent, reported", [("Agent()", True), ("None", False)], ids=["an-agent", "not-an-agent"])
def test_an_agent_passed_to_the_episode_function_is_its_class(tmp_path, agent, reported):
    path = tmp_path / "trader.py"
    path.write_text(AGENT.format(agent=agent))
    assert found(path) == ({("GL504", line_of(path, ".predict("))} if reported else set())
