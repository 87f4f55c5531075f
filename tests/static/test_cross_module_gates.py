"""What a run with nothing to record skips (issue 27's ninth pass): a module none of whose
imports can name a user's module (:func:`project.reaches_elsewhere`) has its cross-module
questions left unasked, and the checks find the same at the edge: a helper module beside the
file, a folder of that name, a relative import, and a project that records (a cache's) asks
everything as before."""

from __future__ import annotations

import textwrap

from graphlint.rules.function_recreated import check as recreation
from graphlint.rules.function_retraced import check as retracing
from graphlint.rules.graph_rebuilt import check as rebuilt
from graphlint.rules.keras_model_churn import check as churn
from graphlint.rules.op_in_run_loop import check as run_loop
from graphlint.static.model import project
from graphlint.static.model.project import Project

HELPER = """
import tensorflow as tf

def make(f):
    return tf.function(f)

@tf.function
def step(x):
    return x + 1

def build():
    return tf.keras.Sequential([tf.keras.layers.Dense(1)])

def train_step():
    x = tf.compat.v1.placeholder(tf.float32, [None, 4])
    y = tf.compat.v1.layers.dense(x, 2)
    with tf.compat.v1.Session() as sess:
        sess.run(y)

def learn(sess, v):
    sess.run(v.assign(1.0))
"""

MAIN = """
import tensorflow as tf
import helper

for i in range(10):
    helper.train_step()
    fn = helper.make(abs)
    helper.step(i)
    m = helper.build()
    helper.learn(None, tf.Variable(0.0))
"""


def _main(tmp_path, main: str = MAIN, *, record: bool = False, helper: str | None = "helper.py"):
    if helper is not None:
        where = tmp_path / helper
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(textwrap.dedent(HELPER))
    path = tmp_path / "main.py"
    path.write_text(textwrap.dedent(main))
    return Project(record=record).load(str(path))


def _hits(module) -> dict[str, list[int]]:
    return {
        "GL101": [h.node.lineno for h in rebuilt.rebuilt_elsewhere(module)],
        "GL102": [h.node.lineno for h in run_loop.op_in_run_loop(module, {"min-repeats": 3})],
        "GL501": [r.node.lineno for r in retracing.retraced_calls(module, 5)],
        "GL502": [h.node.lineno for h in recreation.recreated_functions(module, {})],
        "GL503": [h.node.lineno for h in churn.keras_model_churn(module, {})],
    }


EXPECTED = {"GL101": [6], "GL102": [10], "GL501": [8], "GL502": [7], "GL503": [9]}


def test_a_helper_module_beside_the_file_is_reached_and_reported(tmp_path):
    module = _main(tmp_path)
    assert project.reaches_elsewhere(module)
    assert _hits(module) == EXPECTED


def test_a_recording_project_reports_the_same_and_always_asks(tmp_path):
    module = _main(tmp_path, record=True)
    assert project.reaches_elsewhere(module)
    assert _hits(module) == EXPECTED


def test_a_folder_of_the_imported_name_is_reached(tmp_path):
    # ``import helper.core as helper``: a folder (a namespace package, no __init__.py)
    module = _main(tmp_path, MAIN.replace("import helper", "import helper.core as helper"), helper="helper/core.py")
    assert project.reaches_elsewhere(module)
    assert _hits(module) == EXPECTED


def test_a_relative_import_is_reached(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    module = _main(tmp_path, MAIN.replace("import helper", "from . import helper"))
    assert project.reaches_elsewhere(module)
    assert _hits(module) == EXPECTED


def test_no_module_of_that_name_reaches_nothing_and_reports_nothing(tmp_path):
    module = _main(tmp_path, helper=None)
    assert not project.reaches_elsewhere(module)
    assert _hits(module) == {code: [] for code in EXPECTED}
    assert not module.project.resolutions  # nothing was looked for


def test_another_name_beside_it_is_no_reach(tmp_path):
    module = _main(tmp_path, helper="other.py")
    assert not project.reaches_elsewhere(module)
    assert _hits(module) == {code: [] for code in EXPECTED}


def test_a_library_of_the_same_name_is_never_a_reach(tmp_path):
    (tmp_path / "numpy.py").write_text("def zeros(n):\n    return n\n")
    module = _main(tmp_path, "import numpy as np\nfor i in range(3):\n    np.zeros(i)\n", helper=None)
    assert not project.reaches_elsewhere(module)


def test_the_file_s_own_builds_and_tf_functions_are_still_reported(tmp_path):
    own = """
    import tensorflow as tf

    @tf.function
    def step(x):
        return x + 1

    for i in range(10):
        step(i)
        fn = tf.function(abs)
        m = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    """
    module = _main(tmp_path, own, helper=None)
    assert not project.reaches_elsewhere(module)
    hits = _hits(module)
    assert (hits["GL501"], hits["GL502"], hits["GL503"]) == ([9], [10], [11])


def test_a_module_is_looked_for_only_under_a_top_that_is_there(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("")  # a namespace package: no __init__.py
    (tmp_path / "single.py").write_text("")
    here = str(tmp_path / "main.py")
    found = Project()
    assert found.module_file(here, "pkg.mod") == str(tmp_path / "pkg" / "mod.py")
    assert found.module_file(here, "single") == str(tmp_path / "single.py")
    assert found.module_file(here, "pkg") is None  # a folder without __init__.py is no module file
    assert found.module_file(here, "absent.mod") is None
    assert found.module_file(here, "single.mod") is None
    (tmp_path / "absent").mkdir()
    (tmp_path / "absent" / "mod.py").write_text("")
    assert found.module_file(here, "absent.mod") is None  # remembered, as every look-up is
    assert Project().module_file(here, "absent.mod") == str(tmp_path / "absent" / "mod.py")
