"""GL504's static form on the paths a one-row ``predict`` takes in real code (issue 24): a
sample reached through many callers is followed once per call site, not once per path; a
loop that waits for ``input()`` runs at a person's pace; ``if not flag:`` on a parameter is
a mode switch, not a first-time guard. Static only (the programs read stdin or never run)."""

from __future__ import annotations

import textwrap

import pytest

from harness import found

HEADER = """\
import numpy as np
import keras

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
"""


def write(tmp_path, body: str):
    path = tmp_path / "prog.py"
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def line_of(path, needle: str) -> int:
    return next(i for i, text in enumerate(path.read_text().splitlines(), 1) if needle in text)


@pytest.mark.parametrize("fan", [1, 6])
def test_a_sample_reached_on_many_paths_is_followed_once(tmp_path, fan):
    """Six levels of helpers, each calling the next from ``fan`` places: 6**6 paths from the
    loop's row to ``predict``, one verdict per call site (the check's step budget would run out
    on the paths)."""
    levels = ["def f0(x):\n    return model.predict(x, verbose=0)\n"]
    for i in range(1, 7):
        levels.append(f"def f{i}(x):\n" + "".join(f"    f{i - 1}(x)\n" for _ in range(fan)))
    body = "\n".join(levels) + "\nfor r in np.ones((8, 4)):\n    f6(r[None])\n"
    path = write(tmp_path, body)
    assert found(path) == {("GL504", line_of(path, "model.predict"))}


LOOP = """
def generate(n, interactive=False):
    text = []
    for _ in range(n):
        row = np.zeros((1, 4))
        if not interactive:
            text.append(model.predict(row, verbose=0)[0])
        else:
            options = model.predict(row, verbose=0)[0]
            {ask}


generate(100)
"""


def test_a_loop_that_waits_for_input_is_left_alone_and_a_mode_flag_is_no_guard(tmp_path):
    path = write(tmp_path, LOOP.format(ask="text.append(input('> '))"))
    assert found(path) == {("GL504", line_of(path, "text.append(model.predict"))}


def test_without_input_both_branches_are_found(tmp_path):
    path = write(tmp_path, LOOP.format(ask="text.append(options)"))
    assert found(path) == {("GL504", line_of(path, "text.append(model.predict")), ("GL504", line_of(path, "options = "))}


@pytest.mark.parametrize("stop, reported", [(25, False), (26, True), (100000, True)])
def test_a_periodic_call_counts_its_passes(tmp_path, stop, reported):
    """``if step % 5 == 0:`` in ``range(stop)`` runs ceil(stop / 5) times: 5 (``max-calls``) at
    25 steps is allowed, 6 at 26 is not, and every 5th of 100,000 steps repeats thousands of times."""
    body = f"for step in range({stop}):\n    if step % 5 == 0:\n        model.predict(np.ones((4,))[None], verbose=0)\n"
    path = write(tmp_path, body)
    assert found(path) == ({("GL504", line_of(path, "model.predict"))} if reported else set())
