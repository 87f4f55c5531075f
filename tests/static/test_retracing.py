"""Retracing visible in the source: the static GL501, and GL502 across calls.

Every GL501/GL502 sample is checked statically (its markers, nothing else of those codes) and
run under graphlint in the TF2 sample batch (one eager subprocess, ``tests/sample_driver.py
tf2``; the samples beside another module and two bound programs added to it): both engines
must report the same (code, line) pairs. Behaviours are specified on small programs, checked statically.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness import SAMPLES, batch_programs, expected_markers, line_of, write_program
from graphlint.config import Config
from graphlint.rules.function_recreated import FunctionRecreated
from graphlint.rules.function_retraced import FunctionRetraced
from graphlint.static.engine import check_file

RULES = SAMPLES / "rules"
CODES = ("GL501", "GL502")
ACROSS = SAMPLES / "across_modules"  # samples that import the user's own module beside them
BAD = sorted(p for c in CODES for d in (RULES, ACROSS) for p in d.glob(f"{c.lower()}_bad*.py"))
#: Static findings the run reports on another file, each explained in its sample's docstring:
#: sample -> (code, the file and the text of the line the run reports).
REPORTED_ELSEWHERE = {"gl502_bad_across_modules.py": ("GL502", "retracing_steps.py", "    @tf.function")}
GOOD = sorted(p for c in CODES for p in RULES.glob(f"{c.lower()}_good*.py"))
HEADER = "import numpy as np\nimport tensorflow as tf\n\n"
LOOP = """
@tf.function
def step(x, n):
    return x * n

for i in range({n}):
    step(tf.ones([2]), i)  # here
"""


def static(path: Path, **options) -> list:
    config = Config(rule_options={"GL501": options} if options else {})
    findings = check_file(str(path), [FunctionRetraced, FunctionRecreated], config).findings
    return [f for f in findings if f.code in CODES]


def pairs(findings) -> set:
    return {(f.code, f.location.line) for f in findings}


@pytest.fixture
def source(tmp_path):
    def write(body: str, name: str = "prog.py") -> Path:
        return write_program(tmp_path, body, name, header=HEADER)

    return write


@batch_programs("tf2", "retracing")
def _programs(folder):
    """The GL501/GL502 samples beside another module (not among the batch's samples) and the
    programs at and just over ``max-traces``: key -> path."""
    programs = {str(path): path for path in BAD + GOOD if path.parent == ACROSS}
    for n in (5, 6):
        programs[f"loop_{n}"] = write_program(folder, LOOP.format(n=n), f"loop_{n}.py", header=HEADER)
    return programs


@pytest.fixture
def runtime(sample_runs, batch_runs):
    """What graphlint run reported for each sample and bound program: path -> {(path, code, line)}."""
    runs = {**sample_runs("tf2"), **{result["path"]: result for result in batch_runs("tf2", "retracing").values()}}
    return {path: {(f.location.path, f.code, f.location.line) for f in run["findings"]} for path, run in runs.items()}


# -- samples, both engines -------------------------------------------------------------------
@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_sample_is_found_statically_at_its_markers(path):
    expected = {(c, n) for c, n in expected_markers(path) if c in CODES}
    assert expected, path.name
    findings = static(path)
    assert pairs(findings) == expected, [(f.code, f.location.line, f.message) for f in findings]
    for finding in findings:
        assert finding.fix.strip() and finding.related


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_sample_is_clean_statically(path):
    assert static(path) == []


@pytest.mark.sample_batch("tf2")
@pytest.mark.parametrize("path", BAD + GOOD, ids=lambda p: p.name)
def test_runtime_and_static_agree_on_every_sample(runtime, path):
    ran = {(c, n) for p, c, n in runtime[str(path)] if c in CODES and p == str(path)}
    elsewhere = REPORTED_ELSEWHERE.get(path.name)
    if elsewhere is not None:
        code, name, text = elsewhere
        other = path.parent / name
        lines = other.read_text().splitlines()
        assert [(c, lines[n - 1]) for p, c, n in runtime[str(path)] if p == str(other)] == [(code, text)]
    assert ran == {(c, n) for c, n in pairs(static(path)) if not elsewhere or c != elsewhere[0]}


@pytest.mark.sample_batch("tf2")
@pytest.mark.parametrize("n, fires", [(5, False), (6, True)])
def test_literal_loop_at_and_just_below_max_traces_in_both_engines(runtime, tmp_path, n, fires):
    path = next(Path(p) for p in runtime if p.endswith(f"loop_{n}.py"))
    line = line_of(path, "# here")
    assert pairs(static(path)) == ({("GL501", line)} if fires else set())
    assert runtime[str(path)] == ({(str(path), "GL501", line)} if fires else set())


@pytest.mark.parametrize("n, max_traces, fires", [(5, 5, False), (6, 5, True), (6, 6, False), (7, 6, True), (2, 1, True)])
def test_literal_loop_bound_is_the_max_traces_option(source, n, max_traces, fires):
    path = source(LOOP.format(n=n))
    assert bool(static(path, **{"max-traces": max_traces})) is fires


@pytest.mark.parametrize("n, max_per_site, fires", [(2, 2, False), (3, 2, True), (3, 3, False), (4, 3, True)])
def test_gl502_literal_loop_bound_is_the_max_per_site_option(tmp_path, n, max_per_site, fires):
    path = tmp_path / "prog.py"
    path.write_text(HEADER + f"for i in range({n}):\n    tf.function(lambda v: v * 2)(tf.ones([2]))\n")
    config = Config(rule_options={"GL502": {"max-per-site": max_per_site}})
    findings = check_file(str(path), [FunctionRecreated], config).findings
    assert bool(findings) is fires


def test_rules_command_lists_gl501_as_runtime_and_static():
    from graphlint.cli import main

    result = CliRunner().invoke(main, ["rules", "--format", "json", "--no-plugins"])
    rules = {r["code"]: r for r in json.loads(result.stdout)}
    assert rules["GL501"]["engines"] == ["runtime", "static"]


# -- GL501: what is found, and what it says --------------------------------------------------
def test_gl501_names_the_argument_the_definition_the_loop_and_the_fix(source):
    path = source(
        """
        lr = 0.1

        @tf.function
        def train_step(x, rate):
            return x * rate

        for epoch in range(100):  # loop
            train_step(tf.ones([2]), lr * 0.9 ** epoch)  # here
        """
    )
    (finding,) = static(path)
    assert finding.location.line == line_of(path, "# here")
    assert "`train_step()`" in finding.message
    assert "`rate` is a Python number computed from `epoch` (100 values)" in finding.message
    assert [r.location.line for r in finding.related] == [line_of(path, "@tf.function"), line_of(path, "# loop")]
    assert "Pass `rate` as a tensor (`tf.constant(lr * 0.9 ** epoch)`)" in finding.fix


@pytest.mark.parametrize(
    "body, cause",
    [
        ("for i in range(n):\n    f(x, i / n)", "computed from `i`"),
        ("for i in reversed(range(n)):\n    f(x, i)", "the loop variable of `range(n)`"),
        ("import itertools\nfor t in itertools.count():\n    f(x, t)", "the loop variable of `itertools.count()`"),
        ("for i, b in enumerate(batches):\n    f(b, i)", "the index of `enumerate`"),
        ("step = 0\nwhile True:\n    step += 1\n    f(x, step)", "a counter (`step += 1`)"),
        ("eps = 1.0\nfor b in batches:\n    eps *= 0.99\n    f(b, eps)", "a counter (`eps *= 0.99`)"),
        ("eps = 1.0\nfor b in batches:\n    eps = max(0.01, eps * 0.99)\n    f(b, eps)", "updated in the loop (`eps = ...`)"),
        ("eps = tf.constant(1.0)\nfor b in batches:\n    eps = eps * 0.99\n    f(b, eps)", None),
        ("for b in batches:\n    f(b, max(0.1, 1.0 - n / 1000))", None),
        ("for i in range(n):\n    f(x, max(0.1, 1.0 - i / 1000))", "computed from `i`"),
        ("for i in range(n):\n    f(x, args.lr / (i + 1))", "computed from `i`"),
        ("for b in batches:\n    loss = g(b)\n    f(x, loss.item())", "`.item()`"),
        ("for b in batches:\n    loss = g(b)\n    f(x, float(loss))", "a Python number made from"),
        ("for i in range(n):\n    f(x, [1.0] * i)", "length follows the loop"),
        ("xs = []\nfor i in range(n):\n    xs.append(x)\n    if i % 10 == 0:\n        f(x, xs)", "a list that grows"),
        ("for i in range(n):\n    f(x, lambda v: v * i)", "a new lambda"),
        ("for i in range(n):\n    f(np.zeros((i, 2)), 1)", "shape `(i, 2)` follows `i`"),
        ("for lr in [0.1, 0.05, 0.01, 0.005, 0.001, 0.0005]:\n    f(x, lr)", "6 literal values"),
        ("RATES = [0.1, 0.05, 0.01, 0.005, 0.001, 0.0005]\nfor lr in RATES:\n    f(x, lr)", "6 literal values"),
        ("RATES = [0.1]\nRATES.append(0.2)\nfor i in range(len(RATES)):\n    f(x, i)", "the loop variable"),
    ],
)
def test_gl501_causes(source, body, cause):
    path = source(
        "import argparse\nargs = argparse.Namespace(lr=0.1)\nn = 50\nx = tf.ones([2])\n"
        "batches = [x] * 9\ng = tf.reduce_sum\n\n@tf.function\ndef f(a, b):\n    return a\n\n" + body + "  # here\n"
    )
    if cause is None:
        assert static(path) == []
        return
    (finding,) = static(path)
    assert finding.location.line == line_of(path, "# here")
    assert cause in finding.message, finding.message


@pytest.mark.parametrize(
    "body",
    [
        "for i in range(n):\n    f(x, tf.constant(i))",
        "for i in range(n):\n    t = tf.constant(float(i))\n    f(x, t)",
        "for i in range(n):\n    i = tf.cast(i, tf.float32)\n    f(x, i)",
        "for b in batches:\n    f(b, 1.0)",
        "for i in range(n):\n    f(x, i == 0)",
        "for i in range(n):\n    f(x, i % 2)",
        "for i in range(n):\n    f(x, training=i > 3)",
        "for mode in ('train', 'eval'):\n    f(x, mode)",
        "for i in range(3):\n    f(x, i)",
        "for i in range(len(STAGES)):\n    f(x, i)",
        "for stage in STAGES:\n    f(x, stage)",
        "for i, stage in enumerate(STAGES):\n    f(x, i)",
        "for i in range(n):\n    f(x * i, 2)",
        "for i in range(n):\n    s(x, i)",
        "for i in range(n):\n    r(tf.zeros([i, 2]), 1)\n    r(np.zeros((i, 2)), 1)",
        "@tf.function\ndef outer(x):\n    for i in range(n):\n        x = f(x, i)\n    return x",
        "for i in range(n):\n    h(x, i)",
        "g = tf.function(h, [tf.TensorSpec([2]), tf.TensorSpec([], tf.int32)])\nfor i in range(n):\n    g(x, i)",
        "xs = []\nfor i in range(n):\n    xs = []\n    xs.append(x)\n    f(x, xs)",
        "xs = []\nfor i in range(n):\n    xs.append(x)\n    if i == n - 1:\n        f(x, xs)",
        "for i in range(n):\n    if i == 0:\n        f(x, i)",
    ],
)
def test_gl501_silent(source, body):
    path = source(
        "n = 50\nx = tf.ones([2])\nbatches = [x] * 9\nSTAGES = ('a', 'b', 'c', 'd')\n\n"
        "@tf.function\ndef f(a, b=None, training=False):\n    return a\n\n"
        "@tf.function(input_signature=[tf.TensorSpec([2]), tf.TensorSpec([], tf.int32)])\ndef s(a, b):\n    return a\n\n"
        "@tf.function(reduce_retracing=True)\ndef r(a, b):\n    return a\n\n"
        "def h(a, b):\n    return a\n\n" + body + "\n"
    )
    assert static(path) == []


def test_gl501_through_tf_function_of_a_def_and_a_method_of_a_stored_model(source):
    path = source(
        """
        def update(x, k):
            return x * k

        fast_update = tf.function(update)

        class Net(tf.keras.Model):
            @tf.function
            def train_step(self, x, epoch):
                return x * epoch

        class Loop:
            def __init__(self):
                self.net = Net()
                self.apply = tf.function(self.scale)

            def scale(self, x, k):
                return x * k

            def fit(self, x):
                for epoch in range(40):
                    self.net.train_step(x, epoch)  # decorated method
                    self.apply(x, epoch)  # wrapped method
                    fast_update(x, epoch)  # wrapped def
        """
    )
    found = {f.location.line: f for f in static(path)}
    lines = [line_of(path, f"# {what}") for what in ("decorated method", "wrapped method", "wrapped def")]
    assert set(found) == set(lines)
    assert "`Net.train_step()`" in found[lines[0]].message and "`epoch` is the loop variable" in found[lines[0]].message
    assert "`Loop.scale()`" in found[lines[1]].message and "`k` is" in found[lines[1]].message
    assert "`update()`" in found[lines[2]].message and "`k` is" in found[lines[2]].message


def test_gl501_silent_in_a_def_that_tf_function_wraps(source):
    path = source(
        """
        @tf.function
        def f(x, k):
            return x * k

        def unrolled(x):
            for k in range(10):
                x = f(x, k)
            return x

        fast = tf.function(unrolled)
        """
    )
    assert static(path) == []


def test_gl501_a_counter_kept_on_the_object(source):
    path = source(
        """
        class Trainer:
            def __init__(self):
                self.step = 0

            @tf.function
            def update(self, x, step):
                return x * step

            def fit(self, batches):
                for x in batches:
                    self.step += 1
                    self.update(x, self.step)  # here
        """
    )
    (finding,) = static(path)
    assert finding.location.line == line_of(path, "# here")
    assert "`step` is a counter (`self.step += 1`)" in finding.message


def test_gl501_silent_inside_a_keras_train_step_override(source):
    path = source(
        """
        class Net(tf.keras.Model):
            @tf.function
            def blend(self, y, k):
                return y * k

            def train_step(self, data):
                for k in range(10):
                    data = self.blend(data, k)
                return {}
        """
    )
    assert static(path) == []


# -- GL502 across calls ----------------------------------------------------------------------
def test_gl502_names_the_calling_line_and_the_loop(source):
    path = source(
        """
        def predict(x):
            @tf.function  # here
            def fast(v):
                return v * 2
            return fast(x)

        for request in range(100):  # loop
            predict(tf.ones([2]))  # call
        """
    )
    (finding,) = static(path)
    assert finding.location.line == line_of(path, "# here")
    assert "is called in a loop" in finding.message
    assert [r.location.line for r in finding.related] == [line_of(path, "# call"), line_of(path, "# loop")]


def test_gl502_through_a_chain_of_calls(source):
    path = source(
        """
        def inner(x):
            return tf.function(lambda v: v)(x)  # here

        def outer(x):
            return inner(x)

        for i in range(10):
            outer(x=tf.ones([2]))
        """
    )
    assert pairs(static(path)) == {("GL502", line_of(path, "# here"))}


@pytest.mark.parametrize(
    "body",
    [
        "def make():\n    @tf.function\n    def f(x):\n        return x\n    return f\n\nstep = make()",
        "@tf.function\ndef outer(x):\n    for _ in range(10):\n        x = tf.function(tf.identity)(x)\n    return x",
        "def make():\n    return tf.function(lambda v: v)\n\n@tf.function\ndef outer(x):\n    for _ in range(10):\n        x = make()(x)\n    return x",
        "for mode in ('train', 'eval'):\n    f = tf.function(lambda v: v)",
        "def make():\n    return tf.function(lambda v: v)\n\nfor i in range(2):\n    make()",
        "fns = {'a': tf.abs, 'b': tf.square, 'c': tf.exp}\ncompiled = {k: tf.function(f) for k, f in fns.items()}",
        "class M:\n    def predict(self, x):\n        if self._fn is None:\n            self._fn = tf.function(self.step)\n        return self._fn(x)",
        "class M:\n    def make(self):\n        if self.fn is not None:\n            return self.fn\n        self.fn = tf.function(self.step)\n        return self.fn\n\n    def predict(self, x):\n        return self.make()(x)",
        "import functools\n\n@functools.lru_cache()\ndef make(n):\n    return tf.function(lambda v: v * n)\n\nfor i in range(40):\n    make(2)(x)",
        "for i in range(40):\n    if i == 0:\n        fast = tf.function(tf.abs)\n    fast(x)",
        "def step(x):\n    return tf.function(tf.abs)(x)\n\ndef many(x):\n    for _ in range(40):\n        x = step(x)\n    return x\n\nfast = tf.function(many)",
        "fns = [tf.abs, tf.square, tf.exp]\nfast = []\nfor f in fns:\n    fast.append(tf.function(f))",
    ],
)
def test_gl502_silent(source, body):
    assert static(source(body + "\n")) == []


# -- across modules ---------------------------------------------------------------------------
def test_gl501_follows_the_import_to_the_definition_in_the_users_module():
    (finding,) = static(ACROSS / "gl501_bad_across_modules.py")
    definition, loop = finding.related
    assert definition.location.path == str(ACROSS / "retracing_steps.py")
    assert (ACROSS / "retracing_steps.py").read_text().splitlines()[definition.location.line - 1] == "@tf.function"
    assert loop.location.path == str(ACROSS / "gl501_bad_across_modules.py")


def test_gl502_names_the_application_in_the_other_module_and_the_loop():
    path = ACROSS / "gl502_bad_across_modules.py"
    (finding,) = static(path)
    assert "`make_scorer()` (in `retracing_steps.py`)" in finding.message
    applied, loop = finding.related
    assert applied.location.path == str(ACROSS / "retracing_steps.py")
    assert loop.location.line == line_of(path, "for batch in requests:")


def test_gl502_a_short_literal_loop_over_a_function_of_another_module_is_setup(tmp_path):
    (tmp_path / "lib.py").write_text(HEADER + "def make():\n    return tf.function(lambda v: v)\n")
    main = tmp_path / "main.py"
    main.write_text(HEADER + "from lib import make\n\nMODES = ('train', 'eval')\nfor mode in MODES:\n    make()\n")
    assert static(main) == []


def test_the_helper_module_alone_is_clean():
    assert static(ACROSS / "retracing_steps.py") == []


def test_gl502_a_function_of_another_module_called_once_is_setup(tmp_path):
    (tmp_path / "lib.py").write_text(HEADER + "def make():\n    return tf.function(lambda v: v)\n")
    main = tmp_path / "main.py"
    main.write_text(HEADER + "from lib import make\n\nstep = make()\nfor i in range(9):\n    step(tf.ones([2]))\n")
    assert static(main) == []


# -- values passed in by the caller -----------------------------------------------------------
def test_gl501_a_parameter_fed_by_a_loop_of_the_caller(source):
    path = source(
        """
        @tf.function
        def f(x, epoch):
            return x * epoch

        def run_epoch(epoch, batches):
            for b in batches:
                f(b, epoch)  # here

        def evaluate(epoch):
            return f(tf.ones([2]), epoch)  # and here

        for epoch in range(30):  # loop
            run_epoch(epoch, [tf.ones([2])])  # call
            evaluate(epoch=epoch)
        """
    )
    found = {f.location.line: f for f in static(path)}
    assert set(found) == {line_of(path, "# here"), line_of(path, "# and here")}
    finding = found[line_of(path, "# here")]
    assert "`epoch` is the loop variable of `range(30)` (30 values)" in finding.message
    assert [r.location.line for r in finding.related][1:] == [line_of(path, "# call"), line_of(path, "# loop")]


def test_gl501_a_new_object_passed_in_by_the_caller_names_the_callers_loop(source):
    path = source(
        """
        class Config:
            pass

        @tf.function
        def f(x, config):
            return x

        def step(config):
            return f(tf.ones([2]), config)  # here

        for i in range(30):  # loop
            step(Config())
        """
    )
    (finding,) = static(path)
    assert finding.location.line == line_of(path, "# here")
    assert "a new `Config` object" in finding.message
    assert finding.related[-1].location.line == line_of(path, "# loop")


@pytest.mark.parametrize(
    "call",
    ["run_epoch(tf.constant(epoch))", "run_epoch(3)", "run_epoch(epoch == 0)"],
)
def test_gl501_a_parameter_the_caller_does_not_vary(source, call):
    path = source(
        f"""
        @tf.function
        def f(x, epoch):
            return x * epoch

        def run_epoch(epoch):
            return f(tf.ones([2]), epoch)

        for epoch in range(30):
            {call}
        """
    )
    assert static(path) == []


def test_gl501_a_parameter_rebound_before_the_call_is_not_followed(source):
    path = source(
        """
        @tf.function
        def f(x, epoch):
            return x * epoch

        def run_epoch(epoch):
            epoch = tf.constant(epoch)
            return f(tf.ones([2]), epoch)

        for epoch in range(30):
            run_epoch(epoch)
        """
    )
    assert static(path) == []
