"""`%load_ext graphlint` in a real Jupyter kernel (ipykernel, driven by nbclient): findings
under the cells that caused them, the cells' outputs otherwise identical to a run without the
extension, `%graphlint on|off`, and `%unload_ext graphlint` restoring everything patched."""

from __future__ import annotations

import copy
import re
import subprocess
import sys

import pytest

from harness import HANG_GUARD

LOAD, OFF, ON, LIST, UNLOAD = "%load_ext graphlint", "%graphlint off", "%graphlint on", "%graphlint", "%unload_ext graphlint"
GRAPHLINT_CELLS = {LOAD, OFF, ON, LIST, UNLOAD}
_TF_LOG = re.compile(
    r"^(?:[IWE]\d{4} .*|WARNING: All log messages before absl::InitializeLog\(\) is called.*|To enable the following instructions.*)\n?",
    re.M,
)

# Everything TensorFlow and Keras bind in their modules and classes, by identity.
SNAPSHOT = """\
import sys, types
def _graphlint_snapshot():
    seen = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(("tensorflow", "keras")):
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, (types.FunctionType, type)):
                seen[(name, attr)] = value
            if isinstance(value, type) and value.__module__ == name:
                for key, member in list(vars(value).items()):
                    seen[(name, attr, key)] = member
    return seen
_before = _graphlint_snapshot()
"""
CHANGED = "_now = _graphlint_snapshot()\nprint('patched:', sum(1 for k in _before if k in _now and _now[k] is not _before[k]) > 0)"


def _execute(cells: list[str], order: list[int], control: bool):
    """Run ``cells`` in ``order`` in a fresh kernel; per execution: (cell index, In [n],
    graphlint's outputs, the other outputs). ``control``: graphlint's own cells become `pass`."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    sources = ["pass" if control and (c in GRAPHLINT_CELLS or c == CHANGED) else c for c in cells]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    client = nbclient.NotebookClient(nb, timeout=HANG_GUARD, kernel_name="python3", allow_errors=False)
    runs = []
    with client.setup_kernel():
        for index in order:
            client.execute_cell(nb.cells[index], index)
            outputs = copy.deepcopy(nb.cells[index].outputs)
            ours = [o for o in outputs if "graphlint" in o.get("metadata", {})]
            others = [_without_tf_logs(o) for o in outputs if "graphlint" not in o.get("metadata", {})]
            runs.append((index, nb.cells[index].execution_count, ours, _merged([o for o in others if o is not None])))
    return runs


def _merged(outputs):
    """Consecutive stream outputs of one stream as one: how ipykernel chunks a print depends
    on timing, what the notebook shows does not."""
    merged = []
    for o in outputs:
        if merged and o.get("output_type") == "stream" and merged[-1].get("output_type") == "stream" and merged[-1]["name"] == o["name"]:
            merged[-1] = {**merged[-1], "text": merged[-1]["text"] + o["text"]}
        else:
            merged.append(dict(o))
    return merged


def _without_tf_logs(output):
    """TensorFlow's own start-up log lines carry times and process ids: left out."""
    if output.get("output_type") == "stream" and output.get("name") == "stderr":
        text = _TF_LOG.sub("", output["text"])
        if not text:
            return None
        output = {**output, "text": text}
    return output


def _shown(run) -> list[tuple[str, str]]:
    """(code, where) of each finding graphlint displayed under one execution."""
    return [(f["code"], f["where"]) for o in run[2] for f in o["metadata"]["graphlint"]["findings"]]


@pytest.fixture
def quiet_tensorflow(monkeypatch):
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "3")
    monkeypatch.setenv("PYTHONWARNINGS", "ignore")


TF1_CELLS = [
    "import numpy as np\nimport tensorflow as tf\ntf.compat.v1.disable_eager_execution()",  # 0
    SNAPSHOT,  # 1
    LOAD,  # 2
    "x = tf.compat.v1.placeholder(tf.float32, [None, 4], name='x')\n"  # 3: the model
    "w = tf.Variable(tf.ones([4, 1]), name='w')\n"
    "y = tf.matmul(x, w, name='y')\n"
    "print(w.name, y.name, len(tf.compat.v1.get_default_graph().get_operations()))",
    "sess = tf.compat.v1.Session()\nsess.run(w.initializer)\nsess.run(y, {x: np.ones((2, 4))})",  # 4: runs only
    LIST,  # 5
    OFF,  # 6
    ON,  # 7
    CHANGED,  # 8
    UNLOAD,  # 9
    "_after = _graphlint_snapshot()\nprint('restored:', all(_after[k] is v for k, v in _before.items() if k in _after))",  # 10
    # the good twins: a cell that starts from a fresh default graph, a cell with its own graph
    "tf.compat.v1.reset_default_graph()\nx2 = tf.compat.v1.placeholder(tf.float32, [None, 4])\nz = x2 * 2.0",  # 11
    "with tf.Graph().as_default():\n    q = tf.constant(1.0) * 2.0",  # 12
    "%%time\nc = tf.constant(3.0, name='c')\nd = c * 2.0",  # 13: its body is the cell's from line 2
]
TF1_ORDER = [0, 1, 2, 3, 4, 8, 3, 4, 5, 6, 3, 7, 3, 13, 13, 11, 11, 12, 12, 9, 10, 3]
TIMINGS = {13}  # `%%time` prints how long it took: not the same twice


@pytest.mark.slow
def test_tf1_rerun_cell_is_gl101_under_it_and_outputs_are_unchanged(quiet_tensorflow):
    watched = _execute(TF1_CELLS, TF1_ORDER, control=False)
    control = _execute(TF1_CELLS, TF1_ORDER, control=True)
    shown = [(cell, count, _shown(run)) for run in watched for cell, count in [run[:2]] if run[2]]
    # The model cell's second run (In [7]) rebuilt it into the same graph, and its variable
    # 'w' came back renamed; the first run (In [4]) is not a finding. The session cell's second
    # run (In [8]) drops the first session unclosed (GL303, a session rule's call). Off: the model cell's run In [11] is not
    # watched; on again: In [13] is. A `%%time` cell's re-run (In [15]) is named by the cell's
    # own line. The good twins (In [16] to In [19]) re-run without a finding. After
    # %unload_ext (In [22]) nothing is shown.
    rebuilt = [(cell, count, where) for cell, count, found in shown for code, where in found if code == "GL101"]
    assert rebuilt == [(3, 7, "In [7], line 1"), (3, 13, "In [13], line 1"), (13, 15, "In [15], line 2")], shown
    assert ("GL201", "In [7], line 2") in shown[0][2]  # 'w' renamed 'w_1' by the re-run
    assert {count for _, count, _ in shown} <= {7, 8, 13, 15}, shown  # the session cell may show GL303
    text = [o for o in watched if o[1] == 7][0][2][0]["data"]["text/plain"]
    assert "this cell built its ops into the same graph 2 times (In [4], In [7]), 8 more ops this time; " in text
    assert "ops in the graph after each run: 8 → 16" in text
    assert "In [4], line 1: the first copy was built by In [4]" in text and "fix: " in text
    listed = [o for o in watched if o[0] == 5][0][3]  # %graphlint lists what was shown so far
    so_far = sum(len(found) for _, count, found in shown if count < 9)
    assert listed[0]["text"].startswith("In [7], line 1: GL101 ") and f"{so_far} findings so far" in listed[0]["text"]
    assert [o for o in watched if o[0] == 8][0][3][0]["text"] == "patched: True\n"
    assert [o for o in watched if o[0] == 10][0][3][0]["text"] == "restored: True\n"
    # every other output, and every In [n], is what the same cells give without graphlint
    for (cell, count, _, others), (c_cell, c_count, c_ours, c_others) in zip(watched, control):
        assert (cell, count) == (c_cell, c_count) and c_ours == []
        if TF1_CELLS[cell] not in GRAPHLINT_CELLS and TF1_CELLS[cell] != CHANGED and cell not in TIMINGS:
            assert others == c_others, (cell, count)


TF2_CELLS = [
    "import tensorflow as tf",  # 0
    LOAD,  # 1
    "model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])\nprint(model.layers[0].name)",  # 2
    "@tf.function\ndef step(x):\n    return x * 2",  # 3
    "step(tf.constant(1.0)).numpy()",  # 4
    "tf.keras.backend.clear_session()",  # 5
    # the good twins: a model cell that clears the session first, a tf.function never traced
    "tf.keras.backend.clear_session()\nm2 = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])",  # 6
    "@tf.function\ndef never_called(x):\n    return x",  # 7
]
TF2_ORDER = [0, 1, 2, 2, 3, 4, 3, 4, 2, 3, 4, 5, 2, 2, 6, 6, 6, 7, 7, 7]


@pytest.mark.slow
def test_tf2_keras_model_and_tf_function_rebuilt_by_reruns_at_their_thresholds(quiet_tensorflow):
    watched = _execute(TF2_CELLS, TF2_ORDER, control=False)
    control = _execute(TF2_CELLS, TF2_ORDER, control=True)
    shown = [(cell, count, _shown(run)) for run in watched for cell, count in [run[:2]] if run[2]]
    # GL503 at the third model-building run with no clear_session (In [9]), not at the second
    # (In [4]); after clear_session (In [12]) two more runs are again below the threshold.
    # GL502 at the third definition of a traced tf.function (In [10]), not at the second.
    # The good twins, each run three times (In [15] to In [20]), are not findings.
    assert shown == [
        (2, 9, [("GL503", "In [9], line 1")]),
        (3, 10, [("GL502", "In [10], line 1")]),
    ], shown
    text = [o for o in watched if o[1] == 10][0][2][0]["data"]["text/plain"]
    assert "made a new `tf.function` at this line 3 times (In [5], In [7], In [10])" in text
    assert "the earlier ones' 2 traces were thrown away" in text
    for (cell, count, _, others), (c_cell, c_count, _, c_others) in zip(watched, control):
        assert (cell, count) == (c_cell, c_count)
        if TF2_CELLS[cell] not in GRAPHLINT_CELLS:
            assert others == c_others, (cell, count)
    names = [o[3][0]["text"] for o in watched if o[0] == 2]
    assert names == ["dense\n", "dense_1\n", "dense_2\n", "dense\n", "dense_1\n"]  # as without graphlint


def test_importing_graphlint_imports_neither_ipython_nor_tensorflow():
    code = (
        "import sys, graphlint\n"
        "assert callable(graphlint.load_ipython_extension) and callable(graphlint.unload_ipython_extension)\n"
        "bad = [m for m in ('IPython', 'tensorflow', 'graphlint.jupyter') if m in sys.modules]\n"
        "print(bad)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD)
    assert proc.returncode == 0 and proc.stdout == "[]\n", proc.stderr


TERMINAL = """\
import os
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
for cell in ["%load_ext graphlint", "import tensorflow as tf\\ntf.compat.v1.disable_eager_execution()",
             "a = 1\\nx = tf.constant(1.0) + 2.0", "a = 1\\nx = tf.constant(1.0) + 2.0", "%unload_ext graphlint"]:
    shell.run_cell(cell, store_history=True)
"""


@pytest.mark.slow
def test_terminal_ipython_cells_are_user_code_too(tmp_path):
    """Terminal IPython compiles cells as `<ipython-input-…>`: still the user's lines."""
    pytest.importorskip("IPython")
    env = {**__import__("os").environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", TERMINAL], capture_output=True, text=True, timeout=HANG_GUARD, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    shown = [line for line in proc.stdout.splitlines() if " GL" in line]
    assert shown == [
        "In [4], line 2: GL101 this cell built its ops into the same graph 2 times (In [3], In [4]), "
        "3 more ops this time; ops in the graph after each run: 3 → 6"
    ], proc.stdout
