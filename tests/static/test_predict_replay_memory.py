"""GL504's static form on a replay memory (issue 24): a part of a sampled transition is one row
when every ``.append`` into the memory stores one row there; any other way in (``extend``,
``memory[i] = x``, another list assigned, the memory given to a function or another name) or a
stored batch keeps it silent. Static only."""

from __future__ import annotations

import textwrap

import pytest

from harness import found

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
