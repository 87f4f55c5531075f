"""`graphlint run` loses no finding, however the program ends: findings made in threads and
atexit handlers, before `os._exit` or an `exec`, after a failed `exec`, by subprocesses (each
named), and, for a program killed by a signal, up to its last report. Each case starts
TensorFlow in a child (slow); each checks the program ran as under python too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from harness import GRAPHLINT, HANG_GUARD, TF_ENV, ZIP_TIME, assert_same, run_both

pytestmark = pytest.mark.slow

GL103 = "with tf.Graph():  # GL103\n    pass\n"


def lines_of(source: str, marker: str = "# GL103") -> list[int]:
    return [n for n, line in enumerate(source.splitlines(), 1) if marker in line]


def test_findings_in_threads_and_atexit_handlers_are_judged(tmp_path):
    source = (
        "import atexit, threading, time\nimport tensorflow as tf\n"
        "def late():\n    time.sleep(0.5)\n    " + GL103.replace("\n    ", "\n        ")
        + "def at_exit():\n    " + GL103.replace("\n    ", "\n        ")
        + "threading.Thread(target=late).start()\natexit.register(at_exit)\n" + GL103 + "print('main done')\n"
    )
    py, ours = run_both(tmp_path, {"prog.py": source}, ["prog.py"], env=TF_ENV)
    assert_same(py, ours, tf=True)
    assert ours.codes == [("GL103", n) for n in lines_of(source)]


def test_a_program_that_sends_fd_2_to_devnull_still_gets_its_report(tmp_path):
    (tmp_path / "prog.py").write_text(
        "import os\nimport tensorflow as tf\nos.dup2(os.open(os.devnull, os.O_WRONLY), 2)\n" + GL103 + "print('done')\n"
    )
    proc = subprocess.run([GRAPHLINT, "run", "prog.py"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, **TF_ENV}, timeout=HANG_GUARD)
    assert proc.stdout == "done\n"
    assert proc.stderr.endswith("graphlint: found 1 finding (1 error).\n"), proc.stderr[-3000:]
    assert "prog.py:4:1: GL103" in proc.stderr and proc.returncode == 1


@pytest.mark.parametrize("ending", ["os._exit(0)", "exec", "failed exec"])
def test_findings_before_os_exit_or_exec_and_after_a_failed_exec_are_reported(tmp_path, ending):
    if ending == "exec":
        tail = "import sys\nos.execv(sys.executable, [sys.executable, '-c', 'print(\"exec\")'])\n"
    elif ending == "failed exec":
        tail = ("try:\n    os.execvp('graphlint-no-such-program', ['x'])\nexcept FileNotFoundError:\n"
                "    print('exec failed', flush=True)\n" + GL103)
    else:
        tail = "os._exit(0)\n"
    source = "import os\nimport tensorflow as tf\n" + GL103 + "print('before', flush=True)\n" + tail
    py, ours = run_both(tmp_path, {"prog.py": source}, ["prog.py"], env=TF_ENV)
    assert_same(py, ours, tf=True)
    assert ours.codes == [("GL103", n) for n in lines_of(source)]


def test_a_zipapps_noqa_is_read_from_the_archive(tmp_path):
    def prepare(folder):
        import zipapp

        os.utime(folder / "app" / "__main__.py", (ZIP_TIME, ZIP_TIME))  # the same archive both times
        zipapp.create_archive(folder / "app", folder / "app.pyz")

    main = ("import tensorflow as tf\nwith tf.Graph():  # noqa: GL103\n    pass\n" + GL103 + "print('ran')\n")
    py, ours = run_both(tmp_path, {"app/__main__.py": main}, ["app.pyz"], env=TF_ENV, prepare=prepare)
    assert_same(py, ours, tf=True)
    assert [(f["code"], f["path"], f["line"]) for f in ours.report["findings"]] == [
        ("GL103", os.path.join("app.pyz", "__main__.py"), 4)
    ]


def test_graphlints_dependencies_imported_for_the_program_do_not_shadow_its_own(tmp_path):
    source = "import tensorflow as tf\nimport click\nimport pluggy\nprint(click.MINE, pluggy.MINE)\n" + GL103
    files = {"prog.py": source, "click.py": "MINE = 'my click'\n", "pluggy.py": "MINE = 'my pluggy'\n"}
    py, ours = run_both(tmp_path, files, ["prog.py"], env=TF_ENV)
    assert_same(py, ours, tf=True)
    assert py.stdout == b"my click my pluggy\n" and ours.codes == [("GL103", 5)]


SUBPROCESSES = """\
import multiprocessing as mp, os, subprocess, sys
import tensorflow as tf

def work(i):
    with tf.Graph():  # GL103 in workers
        pass
    return i

if __name__ == "__main__":
    for method in ("fork", "spawn", "forkserver"):
        pool = mp.get_context(method).Pool(1)
        print(method, pool.map(work, [1]), flush=True)
        pool.close()
        pool.join()
    subprocess.run([sys.executable, "helper.py", "an argument"], check=True)
    with tf.Graph():  # GL103 in the program
        pass
"""


def test_subprocesses_are_followed_and_each_finding_names_its_process(tmp_path):
    helper = "import tensorflow as tf\n" + GL103
    py, ours = run_both(tmp_path, {"prog.py": SUBPROCESSES, "helper.py": helper}, ["prog.py"], env=TF_ENV)
    assert_same(py, ours, tf=True)
    messages = {(f["path"], f["line"]): f["message"] for f in ours.report["findings"]}
    assert sorted(messages) == [("helper.py", 2), ("prog.py", 5), ("prog.py", 16)], messages
    assert "(in process" not in messages["prog.py", 16]  # the program's own
    assert "(in 3 processes: " in messages["prog.py", 5]  # a worker of each start method
    assert messages["helper.py", 2].endswith(": python helper.py 'an argument')"), messages["helper.py", 2]


def _started(proc) -> int:
    """The program prints its pid, then works on."""
    line = proc.stdout.readline()
    assert line.startswith(b"pid "), line
    return int(line.split()[1])


LONG_RUN = """\
import os
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
with tf.Graph():  # GL103
    pass
x = tf1.placeholder(tf.float32, [])
with tf1.Session() as sess:
    print("pid", os.getpid(), flush=True)
    step = 0
    while True:  # a training run that never ends by itself
        sess.run(x + 1.0, {x: float(step)})  # GL102: ops added in the run loop
        step += 1
"""


@pytest.mark.parametrize("how", ["SIGKILL to the program", "SIGTERM to graphlint"])
def test_a_long_run_killed_by_a_signal_reports_its_findings_so_far(tmp_path, how):
    (tmp_path / "train.py").write_text(LONG_RUN)
    report = tmp_path / "report.json"
    proc = subprocess.Popen([GRAPHLINT, "run", "--format", "json", "--output", str(report), "train.py"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ, **TF_ENV})
    try:
        pid = _started(proc)
        time.sleep(6)  # a few interim reports' worth of steps (graphlint.child.INTERVAL)
        if how.startswith("SIGKILL"):
            os.kill(pid, signal.SIGKILL)
        else:
            proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
    doc = json.loads(report.read_text())
    expected = signal.SIGKILL if how.startswith("SIGKILL") else signal.SIGTERM
    assert proc.returncode == -expected
    assert doc["program"] == {"exit_status": None, "signal": expected.name}
    codes = {(f["code"], f["line"]) for f in doc["findings"]}
    assert codes == {("GL103", 5), ("GL102", 12)}, doc["findings"]


def test_a_program_using_graphlint_instrument_nests_under_graphlint_run(tmp_path):
    source = ("import graphlint\nimport tensorflow as tf\nwith graphlint.instrument() as inner:\n"
              "    with tf.Graph():\n        pass\nprint(sorted({f.code for f in inner.finish()}))\n")
    py, ours = run_both(tmp_path, {"prog.py": source}, ["prog.py"], env=TF_ENV)
    assert ours.stdout == b"['GL103']\n", ours.stderr[-3000:]
    assert ours.codes == [("GL103", 4)]  # the outer run saw it too


def test_exit_codes(tmp_path):
    """graphlint's exit code: the program's status when it failed, whatever was found (a shell
    sees a death by signal as one); else 1 for findings (0 with --exit-zero); else 0. The
    report goes to stderr, the program's stdout is its own."""
    cases = {
        "findings.py": ("import tensorflow as tf\n" + GL103 + "print('computed', 2 + 2)\n", 1, 0),
        "clean.py": ("import tensorflow as tf\nprint(tf.constant(1.0).numpy())\n", 0, 0),
        "fails_with_findings.py": ("import sys\nimport tensorflow as tf\n" + GL103 + "sys.exit(4)\n", 4, 4),
        "raises.py": ("raise RuntimeError('boom')\n", 1, 1),
        "killed.py": ("import os, signal\nimport tensorflow as tf\n" + GL103 + "os.kill(os.getpid(), signal.SIGTERM)\n",
                      -signal.SIGTERM, -signal.SIGTERM),
    }
    for name, (source, expected, exit_zero) in cases.items():
        (tmp_path / name).write_text(source)
        for options, wanted in (((), expected), (("--exit-zero",), exit_zero)):
            proc = subprocess.run([GRAPHLINT, "run", *options, name], cwd=tmp_path, capture_output=True,
                                  env={**os.environ, **TF_ENV}, timeout=HANG_GUARD)
            assert proc.returncode == wanted, (name, options, proc.stderr[-2000:])
            if "GL103" in source:
                assert b"GL103" in proc.stderr
            if (name, options) == ("findings.py", ()):
                assert proc.stdout == b"computed 4\n"
                assert b"findings.py:2:1: GL103" in proc.stderr
                assert b"fix: Write `with tf.Graph().as_default():`" in proc.stderr
                assert proc.stderr.endswith(b"graphlint: found 1 finding (1 error).\n"), proc.stderr[-2000:]
            if (name, options) == ("fails_with_findings.py", ()):
                assert b"graphlint: the program exited with status 4." in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("how", ["sys.stdout.close()", "sys.stdout = None", "sys.stderr = io.StringIO()"])
def test_a_program_that_closes_or_replaces_its_streams_still_gets_its_report_on_a_line_of_its_own(tmp_path, how):
    (tmp_path / "prog.py").write_text(
        "import io, sys\nimport tensorflow as tf\n" + GL103
        + "sys.stderr.write('progress 50%')\nsys.stderr.flush()\n" + how + "\n"
    )
    proc = subprocess.run([GRAPHLINT, "run", "prog.py"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, **TF_ENV}, timeout=HANG_GUARD)
    assert "progress 50%\nprog.py:3:1: GL103" in proc.stderr, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and proc.returncode == 1


def test_a_program_that_leaves_for_a_deleted_folder_keeps_its_findings_and_relative_output(tmp_path):
    (tmp_path / "prog.py").write_text(
        "import os, tempfile\nimport tensorflow as tf\n" + GL103
        + "with tempfile.TemporaryDirectory() as tmp:\n    os.chdir(tmp)\n"
    )
    proc = subprocess.run([GRAPHLINT, "run", "--format", "json", "--output", "report.json", "prog.py"], cwd=tmp_path,
                          capture_output=True, text=True, env={**os.environ, **TF_ENV}, timeout=HANG_GUARD)
    assert proc.returncode == 1, proc.stderr[-3000:]
    doc = json.loads((tmp_path / "report.json").read_text())
    assert [(f["code"], f["path"], f["line"]) for f in doc["findings"]] == [("GL103", "prog.py", 3)]


STUCK = """\
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
with tf.Graph():
    pass
queue = tf1.FIFOQueue(1, tf.float32)
item = queue.dequeue()
with tf1.Session() as sess:
    print("blocked", flush=True)
    sess.run(item)
"""


def test_a_program_stuck_in_session_run_stopped_by_sigterm_reports_its_findings(tmp_path):
    """Stuck inside TensorFlow's C++ (a dequeue that never returns), as it would be under
    python; SIGTERM sent to graphlint reaches it, and what it had found is reported."""
    (tmp_path / "prog.py").write_text(STUCK)
    proc = subprocess.Popen([GRAPHLINT, "run", "prog.py"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **TF_ENV})
    try:
        assert proc.stdout.readline() == "blocked\n"
        time.sleep(1)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "prog.py:4:1: GL103" in err, err[-3000:]
    assert err.endswith("graphlint: the program was killed by signal 15 (SIGTERM).\n")
    assert proc.returncode == -signal.SIGTERM
