"""Ctrl-C during `graphlint check` is one line and exit 130, whatever the workers were doing
(issue 23): with `-j 2` each worker waiting for work printed a KeyboardInterrupt traceback
before "aborted". The signal goes to the whole process group, as a terminal sends it, while
a rule is busy on one file (it waits until it is stopped) and the other worker has nothing
left to do; a worker left busy would hold the exit (the hang guard fails the test)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from harness import HANG_GUARD, install_plugin

GRAPHLINT = os.path.join(os.path.dirname(sys.executable), "graphlint")

PLUGIN = textwrap.dedent(
    '''
    import os
    import time

    from graphlint import Rule


    class Busy(Rule):
        """Stays on slow.py until stopped."""

        code = "XB100"
        name = "busy"
        summary = "busy"
        engines = ("static",)

        def check_module(self, module):
            if module.path.endswith("slow.py"):
                open(os.environ["BUSY_MARKER"], "w").close()
                time.sleep(3600)
    '''
)


@pytest.mark.parametrize("jobs", ["2", "1"])
def test_ctrl_c_is_one_line_and_exit_130(tmp_path, jobs):
    install_plugin(tmp_path / "site", "xb_rules", PLUGIN, {"XB100": "Busy"})
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "slow.py").write_text("import tensorflow as tf\n")
    for i in range(80):  # enough for a pool; the other worker soon has nothing left to do
        (tree / f"m{i:02}.py").write_text("import tensorflow as tf\nx = 1\n")
    marker = tmp_path / "busy"
    path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(tmp_path / "site")) if p)
    env = dict(os.environ, PYTHONPATH=path, BUSY_MARKER=str(marker))
    proc = subprocess.Popen([GRAPHLINT, "check", "--no-cache", "-j", jobs, "."], cwd=tree, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + HANG_GUARD
        while not marker.exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        time.sleep(1.0)  # (the other worker waits for work by now, on any machine but the slowest)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert [line for line in err.splitlines() if line.strip()] == ["graphlint: aborted"], err
    assert out == ""
