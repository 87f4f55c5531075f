"""The static forms of GL505 layer-created-in-call and of GL201's Keras form (one name, two
layers of one model), on Keras 3 and tf-keras spellings and on their samples."""

from __future__ import annotations

import textwrap

import pytest

from harness import SAMPLES, expected_markers

RULES = SAMPLES / "rules"
BAD = sorted(RULES.glob("gl505_bad*.py")) + [RULES / "gl201_keras_bad.py"]
GOOD = sorted(RULES.glob("gl505_good*.py")) + [RULES / "gl201_keras_good.py"]


def _static(tmp_path, source: str):
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.static import check_file

    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(source))
    rules = [cls for cls in discover_rules(plugins=False).values() if "static" in cls.engines]
    return [f.location.line for f in check_file(str(path), rules, Config(select=["GL505"])).findings]


STATIC = [
    # (source, lines expected)
    ("import keras\nclass B(keras.layers.Layer):\n    def call(self, x):\n        return keras.layers.Dense(2)(x)\n", [4]),
    ("import tensorflow as tf\nclass B(tf.keras.Model):\n    def call(self, x):\n        v = tf.Variable(1.0)\n        return x * v\n", [4]),
    ("from tf_keras import layers\nclass B(layers.Layer):\n    def call(self, x):\n        w = self.add_weight(shape=(2,))\n        return x * w\n", [4]),
    ("import keras\nclass Base(keras.layers.Layer):\n    pass\nclass Inner(Base):\n    def build(self, s):\n        self.w = self.add_weight(shape=(2,))\nclass Outer(Base):\n    def call(self, x):\n        return Inner()(x)\n", [9]),
    ("import keras\nclass Base(keras.layers.Layer):\n    pass\nclass Inner(Base):\n    pass\nclass Outer(Base):\n    def call(self, x):\n        return Inner()(x)\n", []),
    ("import keras\nclass B(keras.layers.Layer):\n    def call(self, x):\n        return keras.layers.Dropout(0.1)(keras.layers.Flatten()(x))\n", [4]),
    ("import tf_keras\nclass B(tf_keras.layers.Layer):\n    def call(self, x):\n        return tf_keras.layers.Dropout(0.1)(tf_keras.layers.MaxPooling2D()(x))\n", []),
    ("import keras\nclass B(keras.layers.Dense):\n    def call(self, x):\n        return keras.layers.Dropout(0.1)(x)\n", [4]),
    # clean: build/__init__, guards, not a Keras class, nested helper
    ("import keras\nclass B(keras.layers.Layer):\n    def __init__(self):\n        super().__init__()\n        self.d = keras.layers.Dense(2)\n    def build(self, s):\n        self.w = self.add_weight(shape=(2,))\n    def call(self, x):\n        return self.d(x) * self.w\n", []),
    ("import keras\nclass B(keras.layers.Layer):\n    def call(self, x):\n        if not hasattr(self, 'd'):\n            self.d = keras.layers.Dense(2)\n        return self.d(x)\n", []),
    ("import keras\nclass B(keras.layers.Layer):\n    def call(self, x):\n        if not self.built:\n            self.d = keras.layers.Dense(2)\n        return self.d(x)\n", []),
    ("import keras\nclass B(keras.layers.Layer):\n    def call(self, x):\n        if self.d is None:\n            self.d = keras.layers.Dense(2)\n        return self.d(x)\n", []),
    ("import keras\nclass Plain:\n    def call(self, x):\n        return keras.layers.Dense(2)(x)\n", []),
    ("import keras\ndef call(x):\n    return keras.layers.Dense(2)(x)\n", []),
    ("import keras\nclass B(keras.layers.Layer):\n    def call(self, x):\n        return keras.layers.concatenate([x, x]) + keras.ops.sum(x)\n", []),
]


@pytest.mark.parametrize("source, lines", STATIC, ids=range(len(STATIC)))
def test_static_gl505(tmp_path, source, lines):
    assert _static(tmp_path, source) == lines


def test_static_gl505_finds_the_bad_samples_and_not_the_good(tmp_path):
    for path in BAD:
        expected = [line for code, line in expected_markers(path) if code == "GL505"]
        assert _static(tmp_path, path.read_text()) == expected, path.name
    for path in GOOD:
        assert _static(tmp_path, path.read_text()) == [], path.name


def _static201(tmp_path, source: str):
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.static import check_file

    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(source))
    rules = [cls for cls in discover_rules(plugins=False).values() if "static" in cls.engines]
    found = check_file(str(path), rules, Config(select=["GL201"])).findings
    return [(f.location.line, [r.location.line for r in f.related]) for f in found]


STATIC_201 = [
    # one class's __init__/build: both lines
    ("import keras\nclass T(keras.Model):\n    def __init__(self):\n        super().__init__()\n"
     "        self.a = keras.layers.Dense(8, name='p')\n        self.b = keras.layers.Dense(1, name='p')\n", [(6, [5])]),
    ("import tensorflow as tf\nclass T(tf.keras.layers.Layer):\n    def build(self, s):\n"
     "        self.a = tf.keras.layers.Dense(8, name='p')\n        self.b = tf.keras.layers.Dense(1, name='p')\n", [(5, [4])]),
    # one Sequential list
    ("import keras\nm = keras.Sequential([\n    keras.layers.Dense(4, name='d'),\n    keras.layers.Dense(2, name='d'),\n])\n", [(4, [3])]),
    # clean: distinct names, two models, a loop, a variable, no name
    ("import keras\nm = keras.Sequential([keras.layers.Dense(4, name='d'), keras.layers.Dense(2, name='e')])\n", []),
    ("import keras\na = keras.Sequential([keras.layers.Dense(4, name='d')])\nb = keras.Sequential([keras.layers.Dense(4, name='d')])\n", []),
    ("import keras\nclass T(keras.Model):\n    def __init__(self):\n        super().__init__()\n"
     "        self.blocks = [keras.layers.Dense(1, name='b') for _ in range(3)]\n", []),
    ("import keras\nclass T(keras.Model):\n    def __init__(self):\n        super().__init__()\n"
     "        self.a = keras.layers.Dense(8)\n        self.b = keras.layers.Dense(1)\n", []),
]


@pytest.mark.parametrize("source, expected", STATIC_201, ids=range(len(STATIC_201)))
def test_static_gl201_keras_form(tmp_path, source, expected):
    assert _static201(tmp_path, source) == expected


def test_static_gl201_keras_finds_the_sample(tmp_path):
    assert _static201(tmp_path, (RULES / "gl201_keras_bad.py").read_text()) == [(16, [15])]
    assert _static201(tmp_path, (RULES / "gl201_keras_good.py").read_text()) == []
