"""GL102's static form on guards (issue 24): a first-time guard inside the run loop hides the
op it builds once; an `if x is None:` that nothing ever sets, or an `if` around the whole loop,
does not (a mode switch: the branch runs at every step). What may set the tested value keeps
the guard: its branch, a line after it, a method of `self`, a call given the value's object."""

from __future__ import annotations

import pytest

from harness import found

LOOP = """\
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
x = tf1.placeholder(tf.float32, [])
v = tf1.get_variable("v", [])
{before}
with tf1.Session() as sess:
    for step in range(100):
        if {test}:
{branch}
        sess.run(v, {{x: 1.0}})
{after}
"""
OP = "            sess.run(tf1.assign(v, x))"


def _found(tmp_path, before="", test="op is None", branch=OP, after=""):
    path = tmp_path / "loop.py"
    path.write_text(LOOP.format(before=before, test=test, branch=branch, after=after))
    return found("--no-cache", str(path))


def _op_line(before: str) -> int:
    return LOOP.format(before=before, test="", branch=OP, after="").splitlines().index(OP) + 1


@pytest.mark.parametrize(
    "before, test",
    [("op = None", "op is None"), ("", "resume is None"), ("EVAL = False", "not EVAL"),
     ("import argparse\nargs = argparse.Namespace(ckpt=None)\nargs.ckpt = None", "args.ckpt is None")],
    ids=["local-none", "unbound", "not-flag", "attribute-none"],
)
def test_a_guard_on_a_value_nothing_sets_is_a_mode_switch(tmp_path, before, test):
    assert _found(tmp_path, before, test) == {("GL102", _op_line(before))}


@pytest.mark.parametrize(
    "before, test, branch, after",
    [
        ("op = None", "op is None", "            op = tf1.assign(v, x)\n            sess.run(op)", ""),
        ("done = False", "not done", OP, "        done = True"),
        ("cache = {}", "'op' not in cache", "            cache['op'] = tf1.assign(v, x)", ""),
        ("import types\nstate = types.SimpleNamespace(op=None)", "state.op is None",
         OP + "\n            state.remember(step)", ""),
        ("import types\nstate = types.SimpleNamespace(op=None)", "state.op is None",
         OP + "\n            setattr(state, 'op', 1)", ""),
    ],
    ids=["set-in-branch", "set-after", "cache-by-key", "method-of-its-object", "object-passed-on"],
)
def test_a_guard_on_a_value_something_sets_stays_a_first_time_guard(tmp_path, before, test, branch, after):
    assert _found(tmp_path, before, test, branch, after) == set()


def test_a_self_attribute_guard_stays_a_first_time_guard(tmp_path):
    path = tmp_path / "trainer.py"
    path.write_text(
        "import tensorflow as tf\n\ntf1 = tf.compat.v1\n\n\nclass Trainer:\n"
        "    def __init__(self):\n        self.v = tf1.get_variable('v', [])\n        self.op = None\n\n"
        "    def build(self):\n        self.op = tf1.assign(self.v, 1.0)\n\n"
        "    def fit(self, sess):\n        for step in range(100):\n            if self.op is None:\n"
        "                self.build()\n                sess.run(tf1.assign(self.v, 2.0))\n"
        "            sess.run(self.v)\n"
    )
    assert found("--no-cache", str(path)) == set()


def test_an_if_around_the_whole_run_loop_guards_nothing_it_repeats(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(
        "import tensorflow as tf\n\ntf1 = tf.compat.v1\nQUERY = False\nv = tf1.get_variable('v', [])\n"
        "with tf1.Session() as sess:\n    if not QUERY:\n        for step in range(100):\n"
        "            sess.run(tf1.assign(v, 1.0))\n"
    )
    assert found("--no-cache", str(path)) == {("GL102", 9)}


@pytest.mark.parametrize(
    "before, test",
    [
        ("from mpi4py import MPI", "MPI.COMM_WORLD.Get_rank() == 0"),
        ("import horovod.tensorflow as hvd", "hvd.rank() == 0"),
        ("def proc_id():\n    return 0", "proc_id() == 0"),
        ("import argparse\nargs = argparse.Namespace(local_rank=0)", "args.local_rank == 0"),
    ],
    ids=["mpi", "horovod", "own-helper", "argument"],
)
def test_the_first_process_is_picked_at_every_step(tmp_path, before, test):
    """``if rank == 0:`` (held-out set 9: spinningup's ``if proc_id() == 0:``) picks one process,
    in which the branch runs at every step: no first-time guard, unlike ``if step == 0:``."""
    assert _found(tmp_path, before, test) == {("GL102", _op_line(before))}
    assert _found(tmp_path, before, "step == 0") == set()
