"""A finding whose function runs again and again because a chain of callers leads to a loop
names that loop among its related locations, not only the caller next to it: `generate()`
called from `generate_to_file()`, called per file in a loop, names the call in the loop and
the loop (held-out set 7: gpt-2-simple named `generate_to_file()` and not its loop)."""

from __future__ import annotations

import textwrap

from harness import check_json

GL101 = """\
import tensorflow as tf


def generate(sess, n):
    x = tf.compat.v1.placeholder(tf.float32, [None])
    y = x * 2.0
    return sess.run(y, {x: [float(n)]})


def generate_to_file(sess, n):
    return generate(sess, n)


def main(sess, files):
    for n in range(len(files)):
        generate_to_file(sess, n)
"""

GL504 = """\
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


def act():
    return model.predict(np.zeros((1, 4)))


def step():
    return act()


for episode in range(100):
    step()
"""

DIRECT = """\
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


def act():
    return model.predict(np.zeros((1, 4)))


for episode in range(100):
    act()
"""


def _related(tmp_path, source: str, code: str) -> list[tuple[int, str]]:
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(source))
    (finding,) = [f for f in check_json("--no-cache", str(path))[1] if f["code"] == code]
    return [(r["line"], r["message"]) for r in finding["related"]]


def test_gl101_through_a_caller_names_the_loop_at_the_root(tmp_path):
    related = _related(tmp_path, GL101, "GL101")
    assert related == [(11, "called here"), (16, "called here, in a loop"), (15, "the loop")]


def test_gl504_through_a_caller_names_the_loop_at_the_root(tmp_path):
    related = _related(tmp_path, GL504, "GL504")
    assert (16, "called here, in a loop") in related and (15, "the loop") in related
    assert (12, "called here") in related


def test_a_call_in_the_loop_itself_is_named_once(tmp_path):
    related = _related(tmp_path, DIRECT, "GL504")
    assert related == [(12, "called here"), (11, "the loop")]
