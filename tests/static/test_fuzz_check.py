"""`graphlint check` fuzzed: generated and mutated Python sources never crash it, never make a
rule fail (GL000), and every finding lies inside the file's lines; a safe fix keeps the file
parseable. Reproducible in CI: seeded, no example database, no deadline.

Each fuzz runs in shards of 500 examples, each shard from its own seed: the fast loop runs the
first shard of each, the whole suite all four (2,000 generated and 2,000 mutated sources), and
pytest-xdist spreads the shards over its workers."""

from __future__ import annotations

import ast
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from harness import SAMPLES  # noqa: E402
from graphlint.config import Config  # noqa: E402
from graphlint.registry import discover_rules  # noqa: E402
from graphlint.static import apply_fixes, check_file  # noqa: E402

EXAMPLES, PER_SHARD = 2000, 500  # of each fuzz: generated sources, mutated samples
#: the shards' seeds; only the first is in the fast loop (a shard finds what the others find,
#: just from other examples: the others add examples, not kinds of input)
SHARDS = [pytest.param(0, id="shard0")] + [
    pytest.param(k, id=f"shard{k}", marks=pytest.mark.slow(reason="more examples of the same kinds as shard0 (fast loop)"))
    for k in range(1, EXAMPLES // PER_SHARD)
]
CONFIG = Config()
STATIC = [
    cls for cls in discover_rules(plugins=False).values()
    if cls.checks_statically()
]
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=list(HealthCheck),
)

HEADERS = [
    "import tensorflow as tf",
    "import tensorflow.compat.v1 as tf",
    "from tensorflow.compat import v1 as tf1",
    "from tensorflow.compat.v1 import Session, placeholder, get_variable",
    "import tensorflow as tf\ntf1 = tf.compat.v1",
    "from tensorflow import keras",
    "import tf_keras as keras",
    "import tensorflow as tf, numpy as np",
]
SIMPLE = [
    "x = tf.compat.v1.placeholder(tf.float32, [None, 4])",
    "w = tf.compat.v1.get_variable('w', [4, 1])",
    "w = tf1.get_variable('weights', [4, 1])",
    "v = tf.Variable(1.0, name='v')",
    "y = tf.matmul(x, w) + 1.0",
    "sess = tf.compat.v1.Session()",
    "sess = tf1.Session(graph=g)",
    "sess = Session()",
    "sess.run(y, {x: batch})",
    "out = sess.run([y, w])",
    "g = tf.Graph()",
    "tf.compat.v1.reset_default_graph()",
    "tf.keras.backend.clear_session()",
    "model = keras.Sequential([keras.layers.Dense(1)])",
    "model = tf.keras.models.clone_model(model)",
    "f = tf.function(lambda t: t * 2)",
    "train = tf.compat.v1.train.AdamOptimizer().minimize(loss)",
    "saver = tf.compat.v1.train.Saver()",
    "saver.restore(sess, path)",
    "init = tf.compat.v1.global_variables_initializer()",
    "predict(batch)",
    "self.sess = tf.compat.v1.Session()",
    "return sess.run(y)",
    "pass",
    "break",
    "continue",
    "yield x",
    "del sess",
    "global g",
    "nonlocal w",
    "x = lambda: tf.constant(1.0)",
    "x: int = 3",
    "raise ValueError('no')",
    "assert x",
    "print(f'{x!r:>10}')",
    "import os",
    "from . import sibling",
    "from .. import *",
]
HEADS = [
    "for i in range(10):",
    "for step, batch in enumerate(data):",
    "while True:",
    "async for a in b:",
    "if step == 0:",
    "if step % 10 == 0:",
    "else:",
    "with tf.Graph():",
    "with tf.Graph().as_default():",
    "with g.as_default(), tf.compat.v1.Session() as sess:",
    "with tf.compat.v1.variable_scope('s', reuse=tf.compat.v1.AUTO_REUSE):",
    "with tf1.Session() as sess:",
    "try:",
    "except ValueError:",
    "except Exception as e:",
    "finally:",
    "def forecast(self, x):",
    "def predict(x):",
    "def __call__(self, x):",
    "async def serve(x):",
    "@tf.function\ndef step(x):",
    "class Model:",
    "class Net(tf.keras.Model):",
    "match x:",
    "case [a, *rest]:",
    "lambda_ = [",
]

_INDENTS = st.sampled_from(["", "    ", "        ", "\t", "  ", "            "])


@st.composite
def generated_sources(draw) -> str:
    """Mostly-plausible TensorFlow programs: headers, statements and block heads at random
    (often valid, often not: indentation and block structure are drawn too)."""
    lines = [draw(st.sampled_from(HEADERS))]
    depth = 0
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.integers(0, 9))
        if kind < 3:
            lines.append("    " * depth + draw(st.sampled_from(HEADS)))
            depth += 1
        elif kind < 8:
            lines.append("    " * depth + draw(st.sampled_from(SIMPLE)))
            if draw(st.booleans()):
                depth = max(0, depth - draw(st.integers(0, 2)))
        elif kind < 9:
            lines.append(draw(_INDENTS) + draw(st.sampled_from(SIMPLE + HEADS)))
        else:
            lines.append(draw(st.text(st.characters(codec="utf-8"), max_size=30)))
        if draw(st.integers(0, 15)) == 0:
            lines[-1] += draw(st.sampled_from(["  # noqa", "  # noqa: GL301", " \\", ";", "  # graphlint: noqa"]))
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\r\n", "\n\n\n"]))


SEEDS = sorted(p.read_text() for p in SAMPLES.glob("**/*.py"))


@st.composite
def mutated_sources(draw) -> bytes:
    """A real sample with a few random edits: slices deleted or duplicated, lines swapped,
    re-indented, truncated, bytes inserted (including invalid UTF-8 and NUL-free junk)."""
    text = draw(st.sampled_from(SEEDS))
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            lines = ["\n"]
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.integers(0, 7))
        if op == 0:
            j = draw(st.integers(i, min(len(lines), i + 8)))
            del lines[i:j]
        elif op == 1:
            j = draw(st.integers(i, min(len(lines), i + 8)))
            lines[i:i] = lines[i:j]
        elif op == 2:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            lines[i] = draw(_INDENTS) + lines[i].lstrip(" \t")
        elif op == 4:
            cut = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:cut] + draw(st.text(max_size=12)) + lines[i][cut:]
        elif op == 5:
            lines = lines[: i + 1]
            lines[-1] = lines[-1][: draw(st.integers(0, len(lines[-1])))]
        elif op == 6:
            lines.insert(i, draw(_INDENTS) + draw(st.sampled_from(SIMPLE + HEADS)) + "\n")
        else:
            lines[i] = lines[i].replace("tf.", draw(st.sampled_from(["tf1.", "tf.compat.v1.", "", "tensorflow."])), 1)
    data = "".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        k = draw(st.integers(0, len(data)))
        data = data[:k] + draw(st.binary(max_size=6)).replace(b"\0", b"") + data[k:]
    return data


def _check_source(data: bytes, directory: str, counter: list) -> None:
    counter.append(1)
    path = os.path.join(directory, "fuzzed.py")
    with open(path, "wb") as fh:
        fh.write(data)
    result = check_file(path, STATIC, CONFIG)
    # a file with n lines has findings on lines 1..n (line 1 for an empty file)
    n_lines = max(1, len(data.splitlines()) + (1 if data.endswith((b"\n", b"\r")) else 0))
    for finding in result.findings:
        assert finding.code != "GL000", (finding.message, data)
        assert finding.location.path == path
        assert 1 <= finding.location.line <= n_lines, (finding, data)
        assert finding.location.column >= 1
        for related in finding.related:
            assert 1 <= related.location.line <= n_lines, (finding, data)
    if result.edits:
        apply_fixes([result])
        with open(path, "rb") as fh:
            ast.parse(fh.read())  # a safe fix never breaks a file that parsed


@pytest.mark.parametrize("shard", SHARDS)
def test_fuzz_generated_sources_never_crash_check(shard):
    counter: list = []
    with tempfile.TemporaryDirectory() as directory:

        @seed(shard)
        @settings(FUZZ, max_examples=PER_SHARD)
        @given(generated_sources())
        def run(source):
            _check_source(source.encode("utf-8", "surrogatepass"), directory, counter)

        run()
    assert len(counter) >= PER_SHARD * 0.9, len(counter)
    print(f"graphlint check fuzz: {len(counter)} generated sources (shard {shard})")


@pytest.mark.parametrize("shard", SHARDS)
def test_fuzz_mutated_samples_never_crash_check(shard):
    counter: list = []
    with tempfile.TemporaryDirectory() as directory:

        @seed(shard)
        @settings(FUZZ, max_examples=PER_SHARD)
        @given(mutated_sources())
        def run(data):
            _check_source(data, directory, counter)

        run()
    assert len(counter) >= PER_SHARD * 0.9, len(counter)
    print(f"graphlint check fuzz: {len(counter)} mutated samples (shard {shard})")
