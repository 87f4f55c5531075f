"""`graphlint check` on the shapes of real TensorFlow code (issue 9): each category of false
positive has a program that must stay silent and a bad twin that must still be found; each
category of miss has a program that must be found. The programs that stand alone are files
under tests/static/cases/, checked with every sample (tests/static/test_check.py); here are
those of several modules, of a configuration, or of a parameter. Expected findings are marked
as a sample's are, ``# GLnnn``; nothing else may be reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import FORECASTER, HEADER, expected_markers, found, write_program

MODEL = """
import tensorflow as tf

tf1 = tf.compat.v1


class Net:
    def __init__(self):
        self.w = tf1.Variable(1.0)

    def step(self, x):
        return tf.reduce_sum(x * self.w)


def helper(x):
    return tf.square(x)
"""


@pytest.mark.parametrize(
    "imports, call",
    [
        ("from model import Net", "net.step(x)"),
        ("import model", "model.helper(x)"),
        ("from model import helper", "helper(x)"),
        ("from pkg import model", "model.helper(x)"),
        ("from pkg.model import Net", "net.step(x)"),
    ],
)
def test_a_class_or_function_of_another_module_of_the_tree_is_followed(tmp_path, imports, call):
    """Only the checked file is named (as pre-commit does): its imports of the user's modules
    beside it are read, nothing else."""
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    (tmp_path / "unrelated.py").write_text("raise SystemExit('never read')\n")
    net = "Net()" if "Net" in imports else "None"
    train = tmp_path / "train.py"
    train.write_text(
        f"import tensorflow as tf\n{imports}\n\ntf1 = tf.compat.v1\nnet = {net}\nx = tf.constant(1.0)\n"
        f"sess = tf1.Session()\nfor step in range(100):\n    print(sess.run({call}))\n"
    )
    assert found(train) == {("GL102", 9)}


AGENT = """
import tensorflow as tf

tf1 = tf.compat.v1


class Agent:
    def __init__(self, sess, pairs):
        self.sess = sess
        self.pairs = pairs
        self.sync = [tf1.assign(t, e) for t, e in pairs]

    def learn(self):
        return self.sess.run([tf1.assign(t, e) for t, e in self.pairs])

    def learn_once_built(self):
        return self.sess.run(self.sync)
"""


@pytest.mark.parametrize("method, reported", [("learn", True), ("learn_once_built", False)])
def test_a_method_of_another_module_that_builds_and_runs_each_step(tmp_path, method, reported):
    (tmp_path / "agent.py").write_text(AGENT)
    train = tmp_path / "train.py"
    train.write_text(
        "import tensorflow as tf\nfrom agent import Agent\n\ntf1 = tf.compat.v1\n"
        f"agent = Agent(tf1.Session(), [])\nfor step in range(1000):\n    agent.{method}()\n"
    )
    assert found(train) == ({("GL102", 7)} if reported else set())


def test_another_module_that_only_runs_is_not_reported(tmp_path):
    (tmp_path / "model.py").write_text(MODEL.replace("return tf.reduce_sum(x * self.w)", "return x"))
    train = tmp_path / "train.py"
    train.write_text(
        "import tensorflow as tf\nfrom model import Net\n\ntf1 = tf.compat.v1\nnet = Net()\n"
        "sess = tf1.Session()\nfor step in range(100):\n    print(sess.run(net.step(1.0)))\n"
    )
    assert found(train) == set()


@pytest.mark.parametrize("min_repeats, reported", [(4, True), (5, False)])
def test_the_loop_bound_follows_the_configured_threshold(tmp_path, min_repeats, reported):
    (tmp_path / "pyproject.toml").write_text(f"[tool.graphlint.rules.GL102]\nmin-repeats = {min_repeats}\n")
    path = write_program(tmp_path, """
        x = tf.constant(1.0)
        sess = tf1.Session()
        for mode in ["a", "b", "c", "d"]:
            sess.run(tf.square(x))
        """, header=HEADER)
    assert found(path, cwd=tmp_path) == ({("GL102", 8)} if reported else set())


MODELS = """
import tensorflow as tf


class Net(tf.keras.Model):
    pass


def build_model(units):
    return tf.keras.Sequential([tf.keras.layers.Dense(units)])


def describe(units):
    return units
"""


@pytest.mark.parametrize(
    "imports, call, reported",
    [
        ("from models import Net", "Net()", True),
        ("from models import build_model", "build_model(fold)", True),
        ("import models", "models.build_model(fold)", True),
        ("import models", "models.describe(fold)", False),
    ],
)
def test_gl503_a_model_class_or_builder_of_another_module(tmp_path, imports, call, reported):
    (tmp_path / "models.py").write_text(MODELS)
    train = tmp_path / "train.py"
    train.write_text(f"import tensorflow as tf\n{imports}\n\nfor fold in range(10):\n    model = {call}\n")
    assert found(train) == ({("GL503", 5)} if reported else set())


@pytest.mark.parametrize("function, reported", [("forecast", True), ("forecast_in_own_graph", False)])
def test_gl101_a_function_of_another_module_that_builds_and_runs_called_in_a_loop(tmp_path, function, reported):
    (tmp_path / "forecaster.py").write_text(FORECASTER)
    main = tmp_path / "main.py"
    main.write_text(
        f"import numpy as np\nimport tensorflow as tf\nfrom forecaster import {function}\nfor day in range(7):\n"
        f"    print({function}(np.ones((1, 4))))\n"
    )
    assert found(main) == ({("GL101", 5)} if reported else set())


# One count of a loop's runs for every analysis (static.model.repeats.loop_count): literals,
# names bound once, range, enumerate, zip, sorted; at and just below GL102's min-repeats (3).
@pytest.mark.parametrize(
    "setup, iterable, reported",
    [
        ("STEPS = 2", "range(STEPS)", False),
        ("STEPS = 3", "range(STEPS)", True),
        ("STEPS = int(input())", "range(STEPS)", True),  # unknown: may run often
        ("MODES = ('a', 'b')", "enumerate(MODES)", False),
        ("MODES = ('a', 'b', 'c')", "zip(MODES, range(10))", True),
        ("MODES = ('a', 'b')", "zip(MODES, range(10))", False),
        ("MODES = ['a', 'b']", "sorted(MODES)", False),
        ("MODES = ['a', 'b']\nMODES.append('c')", "MODES", True),  # grown: no fixed length
    ],
)
def test_a_loop_runs_as_often_as_the_source_fixes(tmp_path, setup, iterable, reported):
    body = setup + "\nx = tf.constant(1.0)\nsess = tf1.Session()\n"
    path = write_program(tmp_path, body + f"for item in {iterable}:\n    sess.run(tf.square(x))  # op\n", header=HEADER)
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if text.endswith("# op"))
    assert found(path) == ({("GL102", line)} if reported else set())


_TEST_CASES = """
import numpy as np


class CasesTest(tf.test.TestCase):

    def test_session_per_case(self):
        for shape in [(2,), (3,), (4,)]:
            with self.session() as sess:
                zeros = tf.zeros(shape)  # GL102
                self.assertAllEqual(sess.run(zeros), np.zeros(shape))

    def test_models_per_config(self):
        for units in [4, 8, 16]:
            model = tf.keras.Sequential([tf.keras.layers.Dense(units)])  # GL503
            self.assertEqual(model(np.ones((1, 3), np.float32)).shape[-1], units)

    def test_function_per_device(self):
        for device in self.devices():
            with tf.device(device):
                double = tf.function(lambda v: v * 2.0)  # GL502
                self.assertAllClose(double(tf.constant(1.0)), 2.0)
"""


@pytest.mark.parametrize(
    "name,reported",
    [
        ("cases.py", True),
        ("cases_test.py", False),
        ("test_cases.py", False),
        ("pkg/cases_tests.py", False),
        ("tests.py", False),
        ("testing_cases.py", True),  # not a test module's name
        ("contest.py", True),
    ],
)
def test_a_test_modules_loops_enumerate_cases(tmp_path, name, reported):
    """In a test module (pytest's and unittest's names), a loop runs a test once per case
    (dtypes, shapes, configurations, devices), each test in a graph of its own: what it builds
    per case is not repetition. The same code anywhere else is."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + _TEST_CASES)
    expected = expected_markers(path)
    assert len(expected) == 3
    assert found(str(path)) == (expected if reported else set())


@pytest.mark.parametrize("name,reported", [("forecaster.py", True), ("forecaster_test.py", False)])
def test_a_rule_about_repetition_reports_nothing_located_in_a_test_module(tmp_path, name, reported):
    """Not only loops: a per-call method that builds its model (GL101) is left out of a test
    module too (Rule.repetition), as at runtime; what is not about repetition (GL103) stays."""
    path = tmp_path / name
    source = (Path(__file__).parents[2] / "samples" / "rules" / "gl101_bad.py").read_text()
    path.write_text(source + "\n\nwith tf.Graph():\n    tf.constant(1.0)\n")
    codes = {code for code, _ in found(str(path))}
    assert codes == ({"GL101", "GL103"} if reported else {"GL103"})


_GET_OR_REFRESH = """
class _State:
    session = None


_STATE = _State()
FORCE = False


def _make_session():
    session = tf1.Session()  # GL301
    _STATE.session = session


def get_session():
    if getattr(_STATE, "session", None) is None or _STATE.session.graph is not tf1.get_default_graph():
        _make_session()
    return _STATE.session


def run(batches, fetch):
    for batch in batches:
        get_session().run(fetch, {"x:0": batch})
"""


@pytest.mark.parametrize(
    "guard,reported",
    [
        ('getattr(_STATE, "session", None) is None or _STATE.session.graph is not tf1.get_default_graph()', False),
        ("_STATE.session is None or _STATE.session.graph != tf1.get_default_graph()", False),
        ('getattr(_STATE, "session", None) is None or FORCE', True),  # made again whenever FORCE is set
        ("_STATE.session is None or tf1.get_default_graph() is not None", True),  # not the cache's own state
    ],
)
def test_a_cache_made_when_missing_or_stale_is_made_once(tmp_path, guard, reported):
    """Get-or-create that also remakes the cache when what it was made for changed (a session
    for another graph, as Keras' own backend does): made once per graph, not per call (GL301)."""
    source = _GET_OR_REFRESH.replace(
        'getattr(_STATE, "session", None) is None or _STATE.session.graph is not tf1.get_default_graph()', guard
    )
    path = write_program(tmp_path, source, header=HEADER)
    assert found(str(path)) == (expected_markers(path) if reported else set())
    assert len(expected_markers(path)) == 1


@pytest.mark.parametrize("guard", ["prev is None or prev != count", "prev is None or count != prev"])
def test_an_op_built_whenever_a_remembered_value_changes_is_no_cache(tmp_path, guard):
    """``prev is None or prev != count`` remembers a value, not a cache: the assign op is built
    again each time the count changes, i.e. every epoch here (GL102), whichever side it is on."""
    path = write_program(
        tmp_path,
        f"""
        steps_per_run = tf1.Variable(1)


        def train(sess, epochs, steps_to_run, train_op):
            for epoch in range(epochs):
                prev = None
                for count in steps_to_run:
                    if {guard}:
                        sess.run(steps_per_run.assign(count))  # GL102
                        prev = count
                    sess.run(train_op)
        """,
        header=HEADER,
    )
    assert found(str(path)) == expected_markers(path) and len(expected_markers(path)) == 1


def test_a_value_remembered_on_self_is_no_cache_either(tmp_path):
    """``self.prev is None or self.prev != count``: the guard compares the remembered value
    itself, not an attribute of a cache, so the op is still built per change (GL102)."""
    path = write_program(
        tmp_path,
        """
        class Trainer:
            def __init__(self):
                self.prev = None
                self.steps = tf1.Variable(1)

            def fit(self, sess, epochs, steps_to_run, train_op):
                for epoch in range(epochs):
                    self.prev = None
                    for count in steps_to_run:
                        if self.prev is None or self.prev != count:
                            sess.run(self.steps.assign(count))  # GL102
                            self.prev = count
                        sess.run(train_op)
        """,
        header=HEADER,
    )
    assert found(str(path)) == expected_markers(path) and len(expected_markers(path)) == 1
