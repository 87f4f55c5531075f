"""The static engine's work grows with the file, not with its square (issue 23: N functions
each calling ``get_variable`` and rebuilding themselves in a loop took 7 s at 0.85 MB, 80 s at
3.4 MB, and never ended at 9.5 MB).

Nothing here is timed: the work is the Python lines the engine executes (``sys.settrace``'s
line events, which a loop's every pass makes too), counted on generated files of N, 2N and 4N
parts of one shape. What a part costs, the second doubling against the first, stays ~2: a
cost per part that grows with the file (an analysis asking of every call something that scans
every call) would make it ~4. ``bench/large_file.py`` times the same shapes from 100 kB to 9 MB.
"""

from __future__ import annotations

import os
import sys

import pytest

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_files

HEAD = "import numpy as np\nimport tensorflow as tf\nfrom tensorflow import keras\n\nsess = tf.compat.v1.Session()\n\n"

#: One part of each shape, ``{i}`` its number: a file is the head and N parts (one loop's body
#: for the shapes whose head opens the loop).
SHAPES = {
    "functions that get_variable and rebuild in a loop": ("", """
def build_{i}(x):
    w = tf.compat.v1.get_variable('w_{i}', [4])
    y = tf.compat.v1.placeholder(tf.float32)
    return sess.run(w + y, {{y: x}})

for step in range(10):
    build_{i}(step)
"""),
    "one training loop doing everything": ("""
@tf.function
def step(x, lr):
    return x * lr

model = keras.Sequential([keras.layers.Dense(2)])
for epoch in range(100):
""", """
    v{i} = tf.compat.v1.assign(w, {i})
    s{i} = tf.compat.v1.Session()
    m{i} = keras.Sequential([keras.layers.Dense({i} + 1)])
    row{i} = np.expand_dims(x, 0)
    p{i} = model.predict(row{i})
    step(x, epoch * {i})
    f{i} = tf.function(lambda v: v)
    sess.run(v{i})
"""),
    "a flat script": ("", """
w{i} = tf.compat.v1.get_variable('v{i}', [4])
x{i} = tf.matmul(w{i}, w{i})
g = tf.Graph()
with g:
    c{i} = tf.constant({i})
"""),
    "classes built in loops": ("", """
class Net{i}(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.x = tf.compat.v1.placeholder(tf.float32)
        self.y = tf.compat.v1.layers.dense(self.x, 2)
        self.d = keras.layers.Dense(2, name='d')
        sess.run(self.y)

    def call(self, v):
        return keras.layers.Dense(2)(v)

    def predict(self, v):
        return sess.run(self.y, {{self.x: v}})

for k in range(5):
    Net{i}()
"""),
    "loops over the model's variables": ("weights = []\n", """
weights.append(tf.compat.v1.get_variable('k{i}', [4]))
for w in weights:
    sess.run(tf.shape(w))
"""),
    "functions reading and rebinding one global": ("g = tf.Graph()\n", """
def use_{i}():
    global g
    with g:
        pass

def inner_{i}():
    h = tf.Graph()
    def reads():
        nonlocal h
        with h:
            pass
    return reads
"""),
}


def _work(source: str, tmp_path) -> int:
    """The lines ``graphlint check`` runs on ``source``, every static rule selected."""
    rules = [cls for cls in discover_rules(plugins=False).values() if cls.checks_statically()]
    for cls in rules:
        cls.static_form()  # imported before counting
    path = tmp_path / "prog.py"
    path.write_text(source)
    lines = 0

    def count(frame, event, arg):
        nonlocal lines
        if event == "line":
            lines += 1
        return count

    sys.settrace(count)
    try:
        (result,) = check_files([str(path)], rules, Config(), jobs=1)
    finally:
        sys.settrace(None)
    assert not [f for f in result.findings if f.code.startswith("GL0")], result.findings
    return lines


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_the_work_per_part_does_not_grow_with_the_file(shape, tmp_path):
    head, part = SHAPES[shape]
    source = {n: HEAD + head + "".join(part.format(i=i) for i in range(n)) for n in (8, 16, 32)}
    _work(source[32], tmp_path)  # what is done once per process (memos of names) is done
    work = {n: _work(source[n], tmp_path) for n in source}
    first, second = work[16] - work[8], work[32] - work[16]
    assert second <= 2.3 * first, work  # linear: 2; a per-part cost that grows with the file: ~4


def test_the_generated_shapes_are_what_the_bench_times():
    """bench/large_file.py generates its files from these shapes (one source for both)."""
    bench = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "large_file.py")
    assert "from test_static_cost import HEAD, SHAPES" in open(bench, encoding="utf-8").read()
