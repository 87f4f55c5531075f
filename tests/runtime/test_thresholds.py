"""Every threshold option of the runtime rules fires at its boundary and not just below, and
the docs say so in one wording; GL501 tells values apart whole, not by their shortened text.

Each program runs with its configuration as `graphlint run --config` reads it (``load``): the
TF1 programs in this process, the TF2 ones (they need eager execution) in the TF2 sample
batch, after the samples (tests/sample_driver.py, started once per test run)."""

from __future__ import annotations

import pytest

from graphlint.config import load
from harness import ROOT, batch_programs, run_linted, write_program

TF1 = "import tensorflow as tf\ntf1 = tf.compat.v1\ntf1.disable_eager_execution()\n"

TF2 = "import numpy as np\nimport tensorflow as tf\n"

THRESHOLDS = [
    # a model rebuilt in a fresh graph per pass and fed: a session per pass that could be kept
    # (a fresh graph holding only its own values is that graph's one session: not counted)
    ("GL301", "max-per-site", 3, {"max-per-graph": 100},
     TF1 + "for i in range(N):\n    g = tf.Graph()\n    with g.as_default():\n        x = tf1.placeholder(tf.float32)\n"
     "        c = x + 1.0\n    with tf1.Session(graph=g) as s:\n        s.run(c, {x: float(i)})\n"),
    ("GL301", "max-per-graph", 3, {"max-per-site": 100},
     TF1 + "g = tf.Graph()\nwith g.as_default():\n    c = tf.constant(1.0)\nfor i in range(N):\n"
     "    with tf1.Session(graph=g) as s:\n        s.run(c)\n"),
    ("GL302", "max-combinations", 3, {},
     TF1 + "g = tf.Graph()\nwith g.as_default():\n    values = [tf.constant(float(i)) for i in range(N)]\n"
     "with tf1.Session(graph=g) as s:\n    for v in values:\n        s.run(v)\n"),
    ("GL303", "max-open-per-graph", 2, {},
     TF1 + "g = tf.Graph()\nwith g.as_default():\n    c = tf.constant(1.0)\nkept = []\nfor i in range(N):\n"
     "    kept.append(tf1.Session(graph=g))\n"),
    ("GL102", "min-repeats", 3, {},
     TF1 + "x = tf1.placeholder(tf.float32, [])\nwith tf1.Session() as s:\n    for i in range(N):\n"
     "        s.run(x + 1.0, {x: 1.0})\n"),
    ("GL501", "max-traces", 3, {},
     TF2 + "@tf.function\ndef f(x):\n    return x * 2\nfor i in range(1, N + 1):\n    f(tf.zeros([i]))\n"),
    ("GL502", "max-per-site", 2, {}, TF2 + "for i in range(N):\n    tf.function(lambda x: x * 2)(tf.constant(1.0))\n"),
    ("GL503", "max-per-site", 2, {},
     TF2 + "for i in range(N):\n    m = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])\n"),
    ("GL504", "max-calls", 3, {},
     TF2 + "model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])\nfor i in range(N):\n"
     "    model.predict(np.zeros((1, 2), np.float32), verbose=0)\n"),
]

def _program(tmp_path, code, option, value, others, program, n):
    """The program repeating its pattern ``n`` times, beside the ``graphlint.toml`` that sets the
    option (the configuration `graphlint run` reads there)."""
    folder = tmp_path / f"{code}-{option}-{n}"
    path = write_program(folder, program.replace("range(N)", f"range({n})").replace("N + 1", f"{n} + 1"), "p.py")
    options = "\n".join(f"{k} = {v}" for k, v in {option: value, **others}.items())
    (folder / "graphlint.toml").write_text(f"[graphlint.rules.{code}]\n{options}\n")
    return path


def _is_tf2(program: str) -> bool:
    return not program.startswith(TF1)


@batch_programs("tf2", "thresholds")
def _tf2_programs(folder):
    """Every TF2 program of this module, written under ``folder``: name -> path (they run in
    the TF2 sample batch, each with its configuration)."""
    paths = {f"strings-{where}": write_program(folder / where, _tag_program(value), "x.py")
             for where, value in LONG_STRINGS.items()}
    for code, option, value, others, program in THRESHOLDS:
        if _is_tf2(program):
            for n in (value, value + 1):
                paths[f"{code}-{option}-{n}"] = _program(folder, code, option, value, others, program, n)
    return paths


@pytest.fixture
def tf2_runs(batch_runs):
    """Every TF2 program of this module run under graphlint: name -> result."""
    return batch_runs("tf2", "thresholds")


def _fires(request, tmp_path, code, option, value, others, program, n) -> bool:
    if _is_tf2(program):  # (a TF1 case waits for no batch)
        result = request.getfixturevalue("tf2_runs")[f"{code}-{option}-{n}"]
        findings, status = result["findings"], result["status"]
    else:
        path = _program(tmp_path, code, option, value, others, program, n)
        findings, outcome = run_linted(path, config=load(None, start=str(path.parent)), reset_tf1=True)
        status = outcome.status
    assert status == 0
    assert "GL000" not in [f.code for f in findings]
    return code in [f.code for f in findings]


@pytest.mark.parametrize("at", ["boundary", "just-below"])
@pytest.mark.parametrize("code, option, value, others, program", [
    pytest.param(*t, id=f"{t[0]}-{t[1]}", marks=[pytest.mark.sample_batch("tf2")] if _is_tf2(t[4]) else [])
    for t in THRESHOLDS])
def test_threshold_option_fires_at_its_boundary_and_not_just_below(request, tmp_path, code, option, value, others,
                                                                   program, at):
    n = value + 1 if at == "boundary" else value
    assert _fires(request, tmp_path, code, option, value, others, program, n) is (at == "boundary")

@pytest.mark.parametrize("code, option", sorted({(t[0], t[1]) for t in THRESHOLDS}))
def test_readme_and_rule_docs_say_the_same_about_each_threshold(code, option):
    """``graphlint rule CODE`` (the docstring) and README's options table use one wording:
    "at least" for min-* options, "more ... than" for max-* options, as the code counts."""
    from graphlint.registry import discover_rules

    doc = " ".join(discover_rules()[code].__doc__.split())
    readme = (ROOT / "docs" / "configuration.md").read_text()  # the README points there
    (row,) = [line for line in readme.splitlines() if line.startswith(f"| {code} | `{option}` |")]
    if option.startswith("min-"):
        assert f"at least `{option}`" in doc and "at least this" in row, (doc, row)
        assert f"more than `{option}`" not in doc
    else:
        assert f"more than `{option}`" in doc and "more" in row and "than this" in row, (doc, row)


# -- GL501: values told apart whole, not by their shortened text ------------------------------------
LONG_STRINGS = {
    "end": '"a" * 50 + str(i)',
    "middle": '"a" * 30 + str(i) + "b" * 30',
}


def _tag_program(value: str) -> str:
    return (
        "import tensorflow as tf\n\n\n@tf.function\ndef tag(x, s):\n    return x + len(s)\n\n\n"
        f"for i in range(8):\n    tag(tf.constant(1.0), {value})\n"
    )


@pytest.mark.sample_batch("tf2")
@pytest.mark.parametrize("where", sorted(LONG_STRINGS))
def test_gl501_tells_long_strings_apart_beyond_their_shortened_text(tf2_runs, where):
    (finding,) = [f for f in tf2_runs[f"strings-{where}"]["findings"] if f.code == "GL501"]
    assert "look the same" not in finding.message
    assert "changed between traces: `s` (str)" in finding.message, finding.message
    if where == "end":
        assert "a0' → '" in finding.message and "a1'" in finding.message
    else:
        assert "(8 different values)" in finding.message
    assert "Pass `s` as a tensor" in finding.fix
