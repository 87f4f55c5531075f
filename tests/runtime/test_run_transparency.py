"""`graphlint run PROGRAM` is `python PROGRAM`: each case is one small program run both ways,
in the same folder one after the other, comparing stdout, stderr, the files it wrote, its exit
status and signal byte for byte. graphlint's report goes to --output (a file outside the
folder) and --exit-zero keeps the exit status the program's own; the cases about findings read
that report too.

The cases are those of issue 22 (each failed on the launcher that ran the program inside
graphlint's own process) and those of coverage.py's run-a-program tests that apply to a
launcher (tests/test_process.py, tests/test_execfile.py: argv, __file__, __main__, sys.path,
-m, folders, zipapps, .pyc, exit statuses, tracebacks, excepthook, atexit, fork, subprocesses).
Most are plain Python; those that start TensorFlow in a child are marked slow.
"""

from __future__ import annotations

import collections
import os
import re
import signal
import subprocess
import threading
import time

import pytest

from harness import GRAPHLINT, HANG_GUARD, PYTHON, ZIP_TIME, Ran, assert_same, run_both, snapshot, write_folder

def same(tmp_path, source: str, *args: str, name: str = "prog.py", extra: dict | None = None, **kw) -> Ran:
    """``source`` as ``name`` (plus ``extra`` files) run both ways: identical; graphlint's run."""
    py, ours = run_both(tmp_path, {name: source, **(extra or {})}, [name, *args], **kw)
    assert_same(py, ours)
    return ours


# -- threads, executors, atexit ---------------------------------------------------------------
@pytest.mark.parametrize("executor", ["ThreadPoolExecutor", "ProcessPoolExecutor"])
def test_an_executor_never_shut_down_ends_as_under_python(tmp_path, executor):
    same(tmp_path, f"""\
        from concurrent.futures import {executor}
        pool = {executor}(2)
        print(pool.submit(pow, 2, 10).result())
        """)


def test_a_thread_and_an_atexit_handler_pickle_a_class_of_the_script(tmp_path):
    ours = same(tmp_path, """\
        import atexit, pickle, threading, time

        class Checkpoint:
            def __init__(self, step):
                self.step = step

        def save(name):
            with open(name, "wb") as fh:
                pickle.dump(Checkpoint(3), fh)
            print("saved", name, flush=True)

        def late():
            time.sleep(0.3)
            save("thread.pkl")

        threading.Thread(target=late).start()
        atexit.register(save, "atexit.pkl")
        print("main done", flush=True)
        """)
    assert set(ours.files) == {"prog.py", "thread.pkl", "atexit.pkl"}


def test_atexit_handlers_run_in_pythons_order_and_see_main(tmp_path):
    same(tmp_path, """\
        import atexit, sys
        value = "still here"
        atexit.register(lambda: print("second", sys.modules["__main__"].value))
        atexit.register(print, "first")
        """)


def test_threading_is_the_programs_own(tmp_path):
    same(tmp_path, """\
        import threading
        print(threading.active_count(), [t.name for t in threading.enumerate()])
        def work():
            raise RuntimeError("in a thread")
        t = threading.Thread(target=work, name="worker")
        t.start(); t.join()
        threading.Thread(target=__import__("time").sleep, args=(0.2,), daemon=True).start()
        print("main ends with a daemon thread still running")
        """)


# -- signals -------------------------------------------------------------------------------------
def test_the_signal_table_is_pythons(tmp_path):
    same(tmp_path, """\
        import signal
        for signum in sorted(signal.valid_signals()):
            handler = signal.getsignal(signum)
            print(int(signum), handler if not callable(handler) else handler.__name__)
        """)


IGNORED = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2")


def _ignore_signals() -> None:
    for name in IGNORED:
        signal.signal(getattr(signal, name), signal.SIG_IGN)


def test_signals_the_caller_ignores_stay_ignored(tmp_path):
    """``nohup graphlint run``, ``trap '' INT``, a shell's background job: the program starts
    with them ignored, as under python, and one sent to it does nothing."""
    ours = same(tmp_path, f"""\
        import os, signal
        for name in {IGNORED!r}:
            print(name, signal.getsignal(getattr(signal, name)))
        os.kill(os.getpid(), signal.SIGHUP)
        os.kill(os.getpid(), signal.SIGINT)
        print("still here")
        """, preexec_fn=_ignore_signals)
    # (SIG_IGN prints as 1)
    assert ours.stdout.splitlines() == [f"{name} 1".encode() for name in IGNORED] + [b"still here"]


def test_a_sigterm_handler_chained_through_getsignal_dies_by_sigterm(tmp_path):
    ours = same(tmp_path, """\
        import os, signal, time
        previous = signal.getsignal(signal.SIGTERM)

        def cleanup(signum, frame):
            print("cleanup", flush=True)
            if callable(previous):
                previous(signum, frame)
            else:
                signal.signal(signum, previous)
                os.kill(os.getpid(), signum)

        signal.signal(signal.SIGTERM, cleanup)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)
        print("not reached")
        """)
    assert ours.returncode == -signal.SIGTERM


def test_closerange_then_own_files_then_sigusr1_leaves_the_files_alone(tmp_path):
    same(tmp_path, """\
        import os, signal
        os.closerange(3, 256)
        fds = [os.open(f"f{i}.txt", os.O_WRONLY | os.O_CREAT, 0o644) for i in range(6)]
        signal.signal(signal.SIGUSR1, lambda signum, frame: print("usr1", flush=True))
        os.kill(os.getpid(), signal.SIGUSR1)
        for fd in fds:
            os.write(fd, b"data")
            os.close(fd)
        """)


def test_a_program_killed_by_its_own_signal_kills_graphlint_by_it(tmp_path):
    ours = same(tmp_path, "import os, signal\nprint('bye', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert ours.returncode == -signal.SIGKILL


CTRL_C = """\
import hashlib, sys, time

def long_c_call(seconds):
    # pbkdf2 never looks at signals: Ctrl-C is seen when it returns
    n = 20_000
    while True:
        start = time.perf_counter()
        hashlib.pbkdf2_hmac("sha256", b"x", b"salt", n)
        if time.perf_counter() - start > 0.25:
            break
        n *= 2
    rate = n / (time.perf_counter() - start)
    print("ready", flush=True)
    hashlib.pbkdf2_hmac("sha256", b"x", b"salt", int(rate * seconds))

try:
    long_c_call(6)
    print("finished")
except KeyboardInterrupt:
    with open("saved.txt", "w") as fh:
        fh.write("checkpoint")
    print("saved", flush=True)
"""


#: As CTRL_C, its C calls about 0.25 s each, one after another until Ctrl-C comes: the signal
#: lands in one of them whenever it is sent, and that call runs on after it.
CTRL_C_IN_CALLS = """\
import hashlib, time

n = 20_000
while True:  # pbkdf2 never looks at signals: Ctrl-C is seen when it returns
    start = time.perf_counter()
    hashlib.pbkdf2_hmac("sha256", b"x", b"salt", n)
    if time.perf_counter() - start > 0.25:
        break
    n *= 2
print("ready", flush=True)
try:
    while True:
        hashlib.pbkdf2_hmac("sha256", b"x", b"salt", n)
except KeyboardInterrupt:
    with open("saved.txt", "w") as fh:
        fh.write("checkpoint")
    print("saved", flush=True)
"""


def _ctrl_c(tmp_path, program: str) -> None:
    """``program`` run both ways, each sent SIGINT half a second after it says it is ready."""
    folder = tmp_path / "prog"
    results = []
    for command in ([PYTHON, "prog.py"], [GRAPHLINT, "run", "--output", str(tmp_path / "r.txt"), "prog.py"]):
        write_folder(folder, {"prog.py": program})
        proc = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            assert proc.stdout.readline() == b"ready\n"
            time.sleep(0.5)
            os.killpg(proc.pid, signal.SIGINT)
            out, err = proc.communicate(timeout=HANG_GUARD)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        results.append((out, err, proc.returncode, snapshot(folder)))
    assert results[0] == (b"saved\n", b"", 0, {"prog.py": program.encode(), "saved.txt": b"checkpoint"})
    assert results[1] == results[0]


def test_ctrl_c_during_a_c_call_reaches_the_programs_except_keyboardinterrupt(tmp_path):
    """The terminal sends SIGINT to the whole foreground process group; here a session stands
    in for it (graphlint and its child both get the signal, as from Ctrl-C)."""
    _ctrl_c(tmp_path, CTRL_C_IN_CALLS)


@pytest.mark.slow(reason="the same Ctrl-C with a 6 s C call (5.5 s of it after the signal); "
                         "test_ctrl_c_during_a_c_call_reaches_the_programs_except_keyboardinterrupt (fast loop)")
def test_ctrl_c_during_a_long_c_call_reaches_the_programs_except_keyboardinterrupt(tmp_path):
    """As above, the program's one C call lasting seconds after the signal."""
    _ctrl_c(tmp_path, CTRL_C)


def test_keyboard_interrupt_uncaught_dies_by_sigint_with_pythons_traceback(tmp_path):
    ours = same(tmp_path, "print('before')\nraise KeyboardInterrupt\n")
    assert ours.returncode == -signal.SIGINT


# -- what the program sees of itself ------------------------------------------------------------
def test_warnings_with_stacklevel_name_pythons_frames(tmp_path):
    same(tmp_path, """\
        import warnings
        warnings.warn("at module level", stacklevel=2)
        def f():
            warnings.warn("in f, for its caller", stacklevel=2)
        f()
        """)


def test_the_stack_is_the_programs_own(tmp_path):
    same(tmp_path, """\
        import inspect, sys, traceback
        traceback.print_stack()
        try:
            sys._getframe(1)
        except ValueError as exc:
            print("no caller:", exc)
        print(len(inspect.stack()), sys._getframe().f_back)
        """)


def test_recursion_limit_60_fits_50_deep_recursion(tmp_path):
    same(tmp_path, """\
        import sys
        sys.setrecursionlimit(60)
        def depth(n):
            return depth(n - 1) + 1 if n else 0
        print(sys.getrecursionlimit(), depth(50))
        """)


def test_the_default_recursion_limit_is_pythons(tmp_path):
    same(tmp_path, """\
        import sys
        def depth(n):
            return depth(n - 1) + 1 if n else 0
        print(depth(995))
        try:
            depth(1000)
        except RecursionError as exc:
            print("RecursionError", exc)
        """)


@pytest.mark.parametrize("module", ["click", "pluggy"])
def test_a_module_beside_the_script_named_like_graphlints_dependencies_is_the_programs(tmp_path, module):
    same(tmp_path, f"import {module}\nprint({module}.MINE, {module}.__file__)\n",
         extra={f"{module}.py": "MINE = 'the program\\'s own'\n"})


def test_startup_state_is_pythons(tmp_path):
    """What python has imported, its path and finders' caches when the program starts."""
    same(tmp_path, """\
        import sys
        print(sorted(sys.modules))
        print(sys.path)
        print(sorted(sys.path_importer_cache))
        print(sys.flags, sys.argv, sys.orig_argv[1:])
        print("sitecustomize" in sys.modules, sys.getprofile(), sys.gettrace())
        """)


def test_a_users_sitecustomize_is_still_imported(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\nMARK = sys.argv[:]\n")
    same(tmp_path, "import sitecustomize, sys\nprint(sitecustomize.MARK, sitecustomize.__file__, sys.path[1:2])\n",
         env={"PYTHONPATH": str(site)})


def test_a_failing_user_sitecustomize_is_reported_as_python_does(tmp_path):
    """(graphlint's own Python starts with the same environment: it says it too, first.)"""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("raise ValueError('broken customize')\n")
    py, ours = run_both(tmp_path, {"prog.py": "import sys\nprint('sitecustomize' in sys.modules)\n"}, ["prog.py"],
                        env={"PYTHONPATH": str(site)})
    assert py.stderr == b"Error in sitecustomize; set PYTHONVERBOSE for traceback:\nValueError: broken customize\n"
    ours.stderr = ours.stderr.replace(py.stderr, b"", 1)  # graphlint's own start
    assert_same(py, ours)


@pytest.mark.parametrize("args", [[], ["a b", "--flag", "-m", "x", "", "ünï", "--"]])
def test_argv_cwd_and_main_module_attributes(tmp_path, args):
    same(tmp_path, """\
        import os, sys
        print(sys.argv, os.getcwd(), __name__, __file__, __spec__, __package__, __doc__, __cached__)
        print(type(__builtins__).__name__, type(__loader__).__name__, sys.modules["__main__"].__file__)
        """, *args)


def test_dash_x_and_dash_w_options_are_the_programs_pythons(tmp_path):
    py, ours = run_both(tmp_path, {"prog.py": "import sys, warnings\nprint(sys.flags.dev_mode, sys.warnoptions, sys._xoptions)\n"
                                   "warnings.warn('now an error')\n"},
                        ["-X", "dev", "-X", "mine=1", "-W", "error", "prog.py"])
    assert_same(py, ours)
    assert py.returncode == 1 and b"UserWarning: now an error" in py.stderr


# -- what python prints of itself -------------------------------------------------------------
def _verbose_lines(data: bytes) -> collections.Counter:
    """``PYTHONVERBOSE``'s lines, each object's address left out (every run has its own)."""
    return collections.Counter(re.sub(rb" at 0x[0-9a-f]+", b"", line) for line in data.splitlines())


def _start_up_lines() -> collections.Counter:
    """What graphlint's own Python prints under ``PYTHONVERBOSE`` before graphlint is imported
    (its start-up, the console script's ``import re``; its teardown allowed too), and what
    graphlint's first modules (``graphlint/__init__.py``, ``_start.py``) import before they can
    hide the rest."""
    proc = subprocess.run([PYTHON, "-c", "import re, __future__, gc, contextlib"], capture_output=True,
                          env={**os.environ, "PYTHONVERBOSE": "1"}, timeout=HANG_GUARD, stdin=subprocess.DEVNULL)
    return _verbose_lines(proc.stderr)


def _graphlints_start(line: bytes) -> bool:
    return any(name in line for name in (b"/graphlint/__init__.py", b"/graphlint/_start.py", b"'graphlint'",
                                         b"'graphlint._start'", b"/graphlint/__pycache__/__init__.",
                                         b"/graphlint/__pycache__/_start.", b"_boot/sitecustomize.py",
                                         b"_boot/__pycache__/sitecustomize.", b"'sitecustomize'",
                                         b"destroy sitecustomize"))


#: graphlint's start-up hook imports ``atexit`` and takes it out of ``sys.modules`` again (the
#: program imports it afresh, printing its line): that first module object is freed, once.
_ITS_ATEXIT = collections.Counter({b"# destroy atexit": 1})


def test_pythonverbose_prints_the_programs_imports_not_graphlints(tmp_path):
    """Every import message python prints for the program is printed; graphlint's own (click,
    its commands, the report, some 700 lines, and its Python's teardown, 550) are not: only
    what its Python printed before graphlint could hide them."""
    py, ours = run_both(tmp_path, {"prog.py": "import json, atexit\nprint(json.dumps([1]))\n"}, ["prog.py"],
                        env={"PYTHONVERBOSE": "1"})
    assert (py.stdout, py.returncode) == (b"[1]\n", 0)
    assert (ours.stdout, ours.returncode) == (py.stdout, py.returncode)
    printed, expected = _verbose_lines(ours.stderr), _verbose_lines(py.stderr)
    assert not expected - printed, "python printed, graphlint run did not"
    extra = [line for line in (printed - expected - _start_up_lines() - _ITS_ATEXIT).elements()
             if not _graphlints_start(line)]
    assert extra == [], f"{len(extra)} lines of graphlint's own: {extra[:20]}"


# -- how python finds the program ------------------------------------------------------------
SHOW = "import sys\nprint(__name__, __file__, sys.argv, sys.path[0], __spec__ and __spec__.name, __package__)\n"


@pytest.mark.parametrize("layout", ["plain", "symlink", "dotdot", "folder", "current-folder", "zipapp", "pyc",
                                    "safe-path"])
def test_the_program_is_found_and_placed_as_python_does(tmp_path, layout):
    files = {"real/x.py": SHOW, "sub/.keep": ""}
    env = {}
    prepare = None
    args = ["real/x.py"]
    if layout == "symlink":
        def prepare(folder):
            os.symlink(folder / "real" / "x.py", folder / "link.py")
        args = ["link.py"]
    elif layout == "dotdot":
        args = ["sub/../real/x.py"]
    elif layout == "folder":
        files["real/__main__.py"] = SHOW
        args = ["real"]
    elif layout == "current-folder":  # python's '' is the current folder (its __main__.py)
        files["__main__.py"] = SHOW
        args = [""]
    elif layout == "zipapp":
        def prepare(folder):
            import zipapp

            (folder / "real" / "__main__.py").write_text(SHOW)
            for member in (folder / "real").iterdir():  # the same archive both times
                os.utime(member, (ZIP_TIME, ZIP_TIME))
            zipapp.create_archive(folder / "real", folder / "app.pyz")
        args = ["app.pyz"]
    elif layout == "pyc":
        def prepare(folder):
            import py_compile

            # the bytecode records the source's mtime: the same both times, however slow the machine
            os.utime(folder / "real" / "x.py", (ZIP_TIME, ZIP_TIME))
            py_compile.compile(str(folder / "real" / "x.py"), cfile=str(folder / "x.pyc"), doraise=True)
        args = ["x.pyc", "arg"]
    elif layout == "safe-path":
        env = {"PYTHONSAFEPATH": "1"}
    py, ours = run_both(tmp_path, files, args, env=env, prepare=prepare)
    assert py.returncode == 0, py.stderr
    assert_same(py, ours)


def test_a_script_on_stdin(tmp_path):
    py, ours = run_both(tmp_path, {}, ["-", "a", "b"], stdin=b"import sys\nprint(sys.argv, repr(sys.path[0]), __name__)\n")
    assert py.stdout.startswith(b"['-', 'a', 'b'] ''")
    assert_same(py, ours)


def test_a_script_read_from_a_fifo(tmp_path):
    """The program's python opens the FIFO and reads the program once (a writer waits for it);
    graphlint opens it never."""
    writers = []

    def prepare(folder):
        os.mkfifo(folder / "prog.fifo")

        def write():
            with open(folder / "prog.fifo", "w") as fh:  # (waits for the one reader)
                fh.write("import sys\nprint('from a fifo', sys.argv, __file__.endswith('prog/prog.fifo'))\n")

        writers.append(threading.Thread(target=write, daemon=True))
        writers[-1].start()

    py, ours = run_both(tmp_path, {}, ["prog.fifo", "arg"], prepare=prepare)
    assert py.stdout == b"from a fifo ['prog.fifo', 'arg'] True\n"
    assert_same(py, ours)
    for writer in writers:
        writer.join(HANG_GUARD)


def test_stdin_is_the_programs(tmp_path):
    py, ours = run_both(tmp_path, {"prog.py": "import sys\nprint(sys.stdin.read().upper())\n"}, ["prog.py"], stdin=b"piped in\n")
    assert_same(py, ours)


PACKAGE = {
    "pkg/__init__.py": "print('pkg init')\n",
    "pkg/__main__.py": "from . import helper\nimport sys\nprint(__name__, __spec__.name, __package__, sys.argv, helper.X)\n",
    "pkg/helper.py": "X = 'relative import'\n",
    "pkg/tool.py": "import sys\nprint(__name__, __spec__.name, sys.argv[0].endswith('tool.py'), sys.path[0] == __import__('os').getcwd())\n",
    "plain/__init__.py": "",
    "mod.py": "print('mod')\n",
    "needs/__init__.py": "",
    "needs/__main__.py": "import not_installed_dependency\n",
}


@pytest.mark.parametrize("target", ["pkg", "pkg.tool", "plain", "pkg.missing", "mod.py", "json.tool", "needs"])
def test_dash_m_is_pythons(tmp_path, target):
    args = ["-m", target] + (["--help"] if target == "json.tool" else ["x", "--help"])
    py, ours = run_both(tmp_path, PACKAGE, args)
    assert_same(py, ours)


# -- how the program ends -------------------------------------------------------------------
@pytest.mark.parametrize("code", ["0", "4", "255", "256", "-1", "2**64", "None", "True", "'a message'", "[1, 2]", "BadStr()"])
def test_exit_status_is_pythons(tmp_path, code):
    same(tmp_path, f"""\
        import sys
        class BadStr:
            def __str__(self):
                raise RuntimeError("no str")
        print("out")
        sys.exit({code})
        """)


def test_an_uncaught_exception_prints_pythons_traceback(tmp_path):
    same(tmp_path, """\
        def inner():
            raise ValueError("inner")
        try:
            inner()
        except ValueError as exc:
            raise RuntimeError("outer") from exc
        """)


def test_a_custom_excepthook_is_called(tmp_path):
    same(tmp_path, """\
        import sys
        def hook(kind, value, tb):
            print("hooked", kind.__name__, value, tb.tb_frame.f_code.co_filename.endswith("prog.py"), tb.tb_next)
        sys.excepthook = hook
        raise ValueError("boom")
        """)


def test_os_exit_loses_buffered_output_as_under_python(tmp_path):
    ours = same(tmp_path, "import os\nprint('buffered, never written', end='')\nos._exit(3)\n")
    assert ours.stdout == b""


def test_exec_replaces_the_program_as_under_python(tmp_path):
    same(tmp_path, """\
        import os, sys
        print("before exec", flush=True)
        os.execv(sys.executable, [sys.executable, "-c", "import sys; print('after exec', sys.argv)", "arg"])
        """)


def test_a_failed_exec_changes_nothing(tmp_path):
    same(tmp_path, """\
        import os
        try:
            os.execvp("graphlint-no-such-program", ["graphlint-no-such-program"])
        except FileNotFoundError as exc:
            print("exec failed:", exc.errno)
        print("goes on")
        """)


def test_forks_and_python_subprocesses_run_as_under_python(tmp_path):
    same(tmp_path, """\
        import multiprocessing as mp, os, subprocess, sys

        def square(x):
            return x * x

        if __name__ == "__main__":
            for method in ("fork", "spawn", "forkserver"):
                with mp.get_context(method).Pool(2) as pool:
                    print(method, pool.map(square, range(4)), flush=True)
            out = subprocess.run([sys.executable, "-c", "import sys; print(sys.path[1:2] == [])"],
                                 capture_output=True, text=True).stdout
            print("subprocess:", out.strip(), flush=True)
            pid = os.fork()
            if pid == 0:
                print("child", flush=True)
                os._exit(5)
            print("child status", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        """)


def test_a_forked_child_killed_by_sigterm_dies_by_it(tmp_path):
    same(tmp_path, """\
        import multiprocessing as mp, time
        if __name__ == "__main__":
            child = mp.get_context("fork").Process(target=time.sleep, args=(60,))
            child.start()
            time.sleep(0.3)
            child.terminate()
            child.join(30)
            print(child.exitcode)
        """)


JAX = {"JAX_PLATFORMS": "cpu"}


@pytest.mark.slow(reason="a fresh Python with JAX, twice")
def test_the_standard_modules_graphlint_imports_are_pythons_frozen_ones(tmp_path):
    """graphlint's engine, started when the program imports a framework, found its own
    imports on the start-up path (graphlint/_boot): a module python keeps frozen (``ntpath``,
    ``importlib.util``, ...) came from its source file instead, another module than python's."""
    py, ours = run_both(tmp_path, {"prog.py": """\
        import jax, sys
        print([(name, sys.modules[name].__spec__.origin) for name in ("ntpath", "importlib.util")])
        """}, ["prog.py"], env=JAX)
    assert py.stdout == b"[('ntpath', 'frozen'), ('importlib.util', 'frozen')]\n"
    assert_same(py, ours)


@pytest.mark.slow(reason="a fresh Python with JAX under PYTHONVERBOSE, twice; "
                         "test_pythonverbose_prints_the_programs_imports_not_graphlints (fast loop)")
def test_pythonverbose_prints_no_import_of_graphlints_engine(tmp_path):
    """The engine starts inside the program's ``import jax``: the messages of its own imports
    (graphlint's modules, pluggy) are left out, the program's all printed."""
    py, ours = run_both(tmp_path, {"prog.py": "import jax, json\nprint('ran')\n"}, ["prog.py"],
                        env={**JAX, "PYTHONVERBOSE": "1"})
    assert (ours.stdout, ours.returncode) == (py.stdout, py.returncode) == (b"ran\n", 0)
    teardown = (b"# cleanup", b"# destroy", b"# clear", b"# restore", b"# wiping")
    printed, expected = (collections.Counter({line: n for line, n in _verbose_lines(run.stderr).items()
                                              if not line.startswith(teardown)}) for run in (ours, py))
    assert not expected - printed, "python printed, graphlint run did not"
    extra = [line for line in (printed - expected - _start_up_lines()).elements() if not _graphlints_start(line)]
    assert [line for line in extra if b"graphlint" in line or b"pluggy" in line] == []


@pytest.mark.slow(reason="a fresh Python with JAX, twice")
def test_a_programs_own_import_function_sees_no_import_of_graphlints(tmp_path):
    """A program that logs its imports through ``builtins.__import__`` saw graphlint's engine
    (started inside its ``import jax``) import itself and pluggy: some 550 calls more."""
    py, ours = run_both(tmp_path, {"prog.py": """\
        import builtins, collections
        real = builtins.__import__
        calls = collections.Counter()

        def logged(name, globals=None, locals=None, fromlist=(), level=0):
            calls[((globals or {}).get("__name__") or "?").partition(".")[0]] += 1
            return real(name, globals, locals, fromlist, level)

        builtins.__import__ = logged
        import jax
        builtins.__import__ = real
        print(calls["graphlint"], calls["pluggy"], calls["sitecustomize"], calls["jax"])
        """}, ["prog.py"], env=JAX)
    assert py.stdout.startswith(b"0 0 0 ")
    assert ours.stdout == py.stdout, ours.stderr[-3000:]


def test_tensorflow_is_not_imported_before_the_program_does(tmp_path):
    same(tmp_path, "import sys\nprint([m for m in sys.modules if m.startswith(('tensorflow', 'jax', 'keras'))])\n")
