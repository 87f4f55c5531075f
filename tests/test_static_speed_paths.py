"""The fast paths of ``graphlint check`` lose no finding: the import prefilter
(graphlint.static.prefilter) and the cache of results (graphlint.static.cache) give exactly
what the full analysis of every file gives, on every sample and on a corpus of real code."""

from __future__ import annotations

import ast
import os
import textwrap
from pathlib import Path

import pytest

from graphlint.config import Config, load
from graphlint.registry import discover_rules
from graphlint.static import check_file, collect
from graphlint.static.prefilter import relevant

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()


def _static_rules(config: Config) -> list[type]:
    rules = discover_rules(plugins=False)
    return [
        cls
        for code, cls in rules.items()
        if "static" in cls.engines and callable(getattr(cls, "check_module", None)) and config.is_selected(code)
    ]


def _fast_and_full(root: Path) -> tuple[int, list[str]]:
    """The number of findings of the full analysis, and each file where the fast path differs."""
    config = load(None, start=str(root))
    rules = _static_rules(config)
    differ, total = [], 0
    for path in collect([str(root)], config):
        full = check_file(path, rules, config, full=True).findings
        fast = check_file(path, rules, config).findings
        total += len(full)
        if fast != full:
            differ.append(f"{path}: fast {[f.code for f in fast]} != full {[f.code for f in full]}")
    return total, differ


def test_the_prefilter_loses_no_finding_on_the_samples():
    total, differ = _fast_and_full(SAMPLES)
    assert total >= 30  # the samples' bad programs: the comparison is not between two empty lists
    assert differ == []


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus (real TensorFlow code) is not here")
def test_the_prefilter_loses_no_finding_on_the_corpus():
    total, differ = _fast_and_full(CORPUS)
    assert total >= 1
    assert differ == []


def _relevant(tmp_path: Path, source: str, name: str = "checked.py") -> bool:
    path = tmp_path / name
    data = textwrap.dedent(source).encode()
    path.write_bytes(data)
    return relevant(str(path), ast.parse(data), data)


@pytest.mark.parametrize(
    "source",
    [
        "import tensorflow as tf\n",
        "import tensorflow.compat.v1 as tf1\n",
        "from tensorflow import keras\n",
        "import keras\n",
        "from tf_keras import layers\n",
        "import jax.numpy as jnp\n",
        "import tensorflow_hub as hub\n",
        # binds `tensorflow` itself: `tensorflow.compat.v1.Session()` is public
        "import tensorflow.python.ops\n",
        # Keras inside TensorFlow: canonicalised to keras.*
        "from tensorflow.python.keras import layers\n",
        "from tensorflow.python import keras\n",
        "from tensorflow import python\nlayer = python.keras.layers.Dense(3)\n",
        "def build():\n    import tensorflow as tf\n    return tf.constant(1)\n",
        "try:\n    import tensorflow as tf\nexcept ImportError:\n    tf = None\n",
        "if True:\n    with open('x') as fh:\n        import tensorflow as tf\n",
        "match 1:\n    case 1:\n        import tensorflow as tf\n",
        "class A:\n    def f(self):\n        from keras import Model\n",
        "from . import model\n",
        "from .model import Net\n",
    ],
)
def test_a_file_whose_imports_can_reach_a_rule_is_analysed(tmp_path, source):
    assert _relevant(tmp_path, source)


@pytest.mark.parametrize(
    "source",
    [
        "import os\nimport numpy as np\n",
        "# uses tensorflow and keras in a comment only\nx = 'jax'\n",
        "from tensorflow.python.ops import array_ops\nfrom tensorflow.python.framework import ops as ops_lib\n",
        "from tensorflow.core.protobuf import config_pb2\n",
        "import tensorflow.python.ops.math_ops as math_ops\n",
        "from tensorflow import python\nx = python.ops\n",
        "",
    ],
)
def test_a_file_whose_imports_reach_no_rule_is_only_parsed(tmp_path, source):
    assert not _relevant(tmp_path, source)


def test_an_import_of_a_module_beside_the_file_makes_it_relevant(tmp_path):
    (tmp_path / "model.py").write_text("import tensorflow as tf\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "util.py").write_text("")
    assert _relevant(tmp_path, "import model\n")
    assert _relevant(tmp_path, "from pkg.util import helper\n")
    assert _relevant(tmp_path, "def f():\n    import pkg.util as u\n")
    assert not _relevant(tmp_path, "import numpy\nimport not_here\n")


FORECASTER = """\
import tensorflow as tf

tf1 = tf.compat.v1


def forecast(x):
    inputs = tf1.placeholder(tf.float32, [None, 4])
    prediction = tf.reduce_sum(inputs, axis=1)
    with tf1.Session() as sess:
        return sess.run(prediction, {inputs: x})
"""


def test_a_file_that_names_no_framework_but_calls_a_model_of_the_tree_is_reported(tmp_path):
    """main.py spells neither TensorFlow nor Keras: the GL101 comes through the module it imports."""
    (tmp_path / "forecaster.py").write_text(FORECASTER)
    main = tmp_path / "main.py"
    main.write_text("import numpy as np\nfrom forecaster import forecast\n\nfor day in range(7):\n    print(forecast(np.ones((1, 4))))\n")
    config = Config(root=str(tmp_path))
    found = check_file(str(main), _static_rules(config), config).findings
    assert [(f.code, f.location.line) for f in found] == [("GL101", 5)]
    assert os.path.basename(found[0].related[0].location.path) == "forecaster.py"
