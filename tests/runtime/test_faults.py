"""`graphlint run` and the probes under faults (issue 6): the program's own faults (an import
error, TensorFlow's error, a failing thread, forks, sys.exit, a real SIGINT) keep python's
output, status and traceback and the findings are reported; a rule raising in any hook is
GL000 and the others carry on; a probe that cannot install is one warning; threads lose and
misattribute nothing; nested instrumentation sees only its block.

In-process where the case allows (``run_linted``); a fresh process only where it is the point
(python's own exit status and traceback, a real signal, a broken start-up), batched; those
start TensorFlow and are marked slow."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness import (
    HANG_GUARD,
    GRAPHLINT,
    TF_ENV,
    BatchProgram,
    batch_programs,
    install_plugin,
    run_in_process,
    run_linted,
    tf_quiet,
    write_program,
)

import tensorflow  # noqa: E402,F401  (a test dependency: if missing, this module fails loudly instead of skipping)

ENV = {**os.environ, **TF_ENV, "PYTHONHASHSEED": "0"}


GL103_HEADER = """\
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
with tf.Graph():  # GL103 at line 3
    pass
"""


# -- program faults: a fresh process, compared with python itself -----------------------------------


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
        write_program(tmp_path, source, name)
    write_program(tmp_path, HELPER, "broken_helper.py")
    procs = {}
    for name in FAULTS:
        procs[name, "python"] = subprocess.Popen(
            [sys.executable, name], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        procs[name, "graphlint"] = subprocess.Popen(
            [GRAPHLINT, "run", "--format", "json", "--output", f"{name}.json", name],
            cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
    done = {key: (p.communicate(timeout=HANG_GUARD), p.returncode) for key, p in procs.items()}
    expected_status = {"at_import.py": 1, "mid_run.py": 1, "in_thread.py": 0, "forks.py": 0, "exit_message.py": 1}
    expected_lines = {"in_thread.py": {3, 9}, "forks.py": {3, 10, 20}}
    for name in FAULTS:
        (py_out, py_err), py_status = done[name, "python"]
        (gl_out, gl_err), gl_status = done[name, "graphlint"]
        assert py_status == expected_status[name], (name, py_err.decode()[-2000:])
        assert gl_out == py_out, name
        assert tf_quiet(gl_err) == tf_quiet(py_err), name  # (an error raised through a probe's wrapper too)
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
    prog = write_program(
        tmp_path,
        "import os, signal, time\nprint('before', flush=True)\n"
        "os.kill(os.getpid(), signal.SIGINT)\ntime.sleep(30)\nprint('never')\n",
        "sigint.py",
        header=GL103_HEADER,
    )
    proc = subprocess.run([GRAPHLINT, "run", prog.name], cwd=tmp_path, env=ENV, capture_output=True, timeout=HANG_GUARD)
    err = proc.stderr.decode()
    assert proc.returncode == -signal.SIGINT  # as python: a KeyboardInterrupt ends it by SIGINT
    assert proc.stdout == b"before\n"
    assert "KeyboardInterrupt" in err and 'line 7, in <module>' in err
    assert "sigint.py:3:1: GL103" in err and "graphlint: found 1 finding" in err


# -- rule faults: every hook ------------------------------------------------------------------------


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

TORCH_HOOKS = ["graphlint_graph_break", "graphlint_recompile_limit_reached"]

def test_every_hook_is_fault_injected():
    """A hook added to the specs must join one of the lists below (and its program)."""
    assert set(_hook_names()) == set(TF1_HOOKS) | set(TF2_HOOKS) | set(TORCH_HOOKS)

#: The TF2 hooks' raising rules, one per hook (code -> hook), installed as a third-party
#: distribution: the TF2 program runs once per hook, in the TF2 sample batch (one eager
#: subprocess), each run with the distribution on its path and its one raising rule selected
#: (a ``graphlint.toml`` beside it ignores the others).
TF2_RAISING = {f"XY9{i:02d}": hook for i, hook in enumerate(TF2_HOOKS, 1)}
RAISING_RULES = """\
from graphlint import Rule


def raising(hook, code):
    def method(self):
        raise ZeroDivisionError(f"raised in {hook}")

    method.__name__ = hook
    return type(f"Raises_{hook}", (Rule,), {
        "__doc__": "Raises.", "code": code, "name": f"raises-{code.lower()}", "summary": "raises", hook: method,
    })


""" + "".join(f"Raises_{hook} = raising({hook!r}, {code!r})\n" for code, hook in TF2_RAISING.items())


@batch_programs("tf2", "faults")
def _tf2_fault_programs(folder):
    """EVERY_TF2_EVENT once per TF2 hook, with that hook's raising rule: hook -> program."""
    site = install_plugin(folder / "site", "raising_rules", RAISING_RULES,
                          {code: f"Raises_{hook}" for code, hook in TF2_RAISING.items()})
    programs = {}
    for code, hook in TF2_RAISING.items():
        programs[hook] = BatchProgram(write_program(folder / hook, EVERY_TF2_EVENT, "events.py"), sys_path=(str(site),))
        others = ", ".join(f'"{other}"' for other in TF2_RAISING if other != code)
        (folder / hook / "graphlint.toml").write_text(f"[graphlint]\nignore = [{others}]\n")
    return programs


@pytest.fixture
def tf2_faults(batch_runs):
    """EVERY_TF2_EVENT run under graphlint once per TF2 hook with that hook's raising rule:
    hook -> result."""
    return batch_runs("tf2", "faults")


@pytest.mark.parametrize("hook", TF1_HOOKS + [pytest.param(hook, marks=pytest.mark.sample_batch("tf2")) for hook in TF2_HOOKS])
def test_a_rule_raising_in_any_hook_becomes_gl000_and_the_others_carry_on(request, tmp_path, hook):
    from graphlint.registry import discover_rules

    if hook in TF2_HOOKS:  # eager execution: not in this process, where TF1 programs turned it off
        result = request.getfixturevalue("tf2_faults")[hook]
        status, findings = result["status"], result["findings"]
        path = Path(result["path"])
        (code,) = [code for code, raising in TF2_RAISING.items() if raising == hook]
    else:
        path = write_program(tmp_path, EVERY_EVENT, "events.py")
        rules = [*discover_rules(plugins=False).values(), _raising_rule(hook)]
        findings, outcome = run_linted(path, rules=rules, warn=lambda m: None, reset_tf1=True)
        status, code = outcome.status, "XY999"
    assert status == 0
    internal = [f for f in findings if f.code == "GL000" and f.message.startswith(f"rule {code} ")]
    assert internal, f"{hook} was never called, or its exception was lost"
    assert {f.message for f in internal} == {f"rule {code} failed in {hook}: ZeroDivisionError: raised in {hook}"}
    assert internal[0].count >= 1
    codes = {(f.code, f.location.line) for f in findings if f.location.path == str(path)}
    if hook in TF2_HOOKS:
        assert ("GL103", 31) in codes, codes  # the built-ins carried on
    else:
        assert ("GL103", 5) in codes and ("GL202", 14) in codes, codes


@pytest.mark.slow
def test_a_probe_that_cannot_install_degrades_end_to_end(tmp_path):
    """`graphlint run` with the session probe broken (by a sitecustomize of the program's
    Python): one warning line after the program's output, the other rules work, the program
    runs to its end, exit status as usual."""
    (tmp_path / "site").mkdir()
    site = write_program(tmp_path / "site", """\
        from graphlint.probes import tf_graph

        def broken(self):
            raise AttributeError("module 'session' has no attribute 'BaseSession'")

        tf_graph.GraphProbe._patch_sessions = broken
        """, "sitecustomize.py")
    path = write_program(tmp_path, EVERY_EVENT + "print('end')\n")
    proc = subprocess.run([GRAPHLINT, "run", path.name], cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD,
                          env={**ENV, "PYTHONPATH": str(site.parent)})
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stdout == "end\n"
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("graphlint: cannot watch")]
    assert len(warnings) == 1 and "sessions" in warnings[0] and "BaseSession" in warnings[0]
    assert "prog.py:5:1: GL103" in proc.stderr.split(warnings[0])[1] and "GL000" not in proc.stderr
    assert "Traceback" not in proc.stderr


# -- concurrency ------------------------------------------------------------------------------------


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
    path = write_program(tmp_path, THREADS, "threads.py")
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
    # the eight threads' sessions, all created at one line, each do a whole run (31 runs, at
    # least WHOLE_RUN): eight trials side by side, no GL301
    assert set(by_code) == {"GL102", "GL103"}


# -- the program's own graphlint --------------------------------------------------------------------


def test_nested_instrument_in_process_sees_only_its_block():
    import tensorflow as tf

    import graphlint

    with graphlint.instrument() as outer:
        with tf.Graph():
            pass
        with graphlint.instrument() as inner:
            with tf.Graph():
                pass
        inner_lines = [f.location.line for f in inner.finish()]
    outer_lines = sorted(f.location.line for f in outer.finish() if f.code == "GL103")
    assert len(inner_lines) == 1 and len(outer_lines) == 2 and inner_lines[0] == outer_lines[1]
