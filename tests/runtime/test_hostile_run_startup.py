"""What the program's Python starts with under `graphlint run`: the caller's environment and
interpreter state, not what graphlint's own Python made of them. Each case runs both ways
(tests/harness.py's run_both) and compares output, files and exit status byte for byte."""

from __future__ import annotations

import errno
import os
import subprocess

import pytest

from harness import GRAPHLINT, HANG_GUARD, PYTHON, assert_same, one_line_error, run_both

LOCALE = """\
import locale, os, sys
print(sys.flags.utf8_mode, os.environ.get("LC_CTYPE"), locale.getpreferredencoding(False), sys.stdout.encoding)
print(locale.setlocale(locale.LC_CTYPE), "\\u00e9")
"""


def test_the_c_locale_is_coerced_by_the_programs_python_not_graphlints(tmp_path):
    """Python started in the C locale sets LC_CTYPE=C.UTF-8 in its own environment (PEP 538)
    and turns UTF-8 mode on; graphlint's Python did the first, and its child, given C.UTF-8,
    never the second (utf8_mode 0, getpreferredencoding 'UTF-8' for 'utf-8')."""
    py, ours = run_both(tmp_path, {"prog.py": LOCALE}, ["prog.py"], env={"LC_CTYPE": "C", "LC_ALL": "", "LANG": "C"})
    assert py.stdout.split(b"\n")[0] == b"1 C.UTF-8 utf-8 utf-8"
    assert_same(py, ours)


def test_os_exit_pickles_and_is_posix_exit_as_under_python(tmp_path):
    """graphlint reports before os._exit by replacing it; the replacement was not posix._exit,
    so pickle refused it ("not the same object as posix._exit") and a spawned
    Process(target=os._exit) failed before it started."""
    py, ours = run_both(tmp_path, {"prog.py": """\
        import multiprocessing as mp, os, pickle, posix
        print(os._exit is posix._exit, pickle.loads(pickle.dumps(os._exit)) is os._exit)
        if __name__ == "__main__":
            child = mp.get_context("spawn").Process(target=os._exit, args=(3,))
            child.start()
            child.join()
            print("exitcode", child.exitcode)
        """}, ["prog.py"])
    assert py.stdout == b"True True\nexitcode 3\n"
    assert_same(py, ours)


@pytest.mark.parametrize("how", ["class-attribute", "keyword", "plain"])
def test_os_exit_reads_and_calls_as_the_builtin(tmp_path, how):
    """graphlint's os._exit (it reports first) was a Python function: stored in a class it
    bound as a method (``A().e(3)``: a TypeError, exit 1), and it read as no builtin (repr,
    __self__). It is called, read and pickled as python's own."""
    py, ours = run_both(tmp_path, {"prog.py": """\
        import copy, inspect, os, pickle, posix, sys
        class A:
            e = os._exit
        print(repr(os._exit), os._exit.__name__, os._exit.__qualname__, os._exit.__module__, os._exit.__self__)
        print(inspect.signature(os._exit), A.e is os._exit, A().e is os._exit, copy.deepcopy(os._exit) is os._exit)
        print(pickle.loads(pickle.dumps(os._exit)) is os._exit, os._exit is posix._exit, callable(os._exit), flush=True)
        if sys.argv[1] == "class-attribute":
            A().e(3)
        elif sys.argv[1] == "keyword":
            os._exit(status=4)
        os._exit(5)
        """}, ["prog.py", how])
    assert py.stdout.startswith(b"<built-in function _exit> _exit _exit posix <module 'posix' (built-in)>\n")
    assert py.returncode == {"class-attribute": 3, "keyword": 4, "plain": 5}[how]
    assert_same(py, ours)


FOLLOWED = """\
import os, subprocess, sys
CHILD = "import os; print(type(os._exit).__name__ == '_Exit')"  # graphlint's hook
for env in (None, dict(os.environ), {**os.environ, "EXTRA": "1"}):
    print(subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True).stdout.strip())
"""


def test_a_subprocess_given_a_copy_of_os_environ_is_followed(tmp_path):
    """A launcher's ``subprocess.run(..., env=dict(os.environ))`` or ``{**os.environ, ...}``:
    the child gets graphlint's start-up hook as one that inherits the environment does (a
    change that hid graphlint's variables from ``os.environ`` lost such children)."""
    (tmp_path / "prog.py").write_text(FOLLOWED)
    proc = subprocess.run([GRAPHLINT, "run", "prog.py"], cwd=tmp_path, capture_output=True, timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [b"True", b"True", b"True"], proc.stdout


ENVIRON = """\
import inspect, os, pickle, posix, subprocess, sys
print(sorted(os.environ.items()))
print(sorted(os.environb.items()))
print(os.getenv("PYTHONPATH"), "GRAPHLINT_RUN" in os.environ, os.environ.copy() == dict(os.environ))
CHILD = "import os, sys; print(os.getenv('PYTHONPATH'), sys.path[1:2], 'GRAPHLINT_RUN' in os.environ)"
print(subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True).stdout, end="")
print(subprocess.run([sys.executable, "-c", CHILD], env=dict(os.environ), capture_output=True, text=True).stdout, end="")
for name in ("execve", "posix_spawn", "posix_spawnp", "putenv", "unsetenv"):
    function = getattr(os, name)
    try:
        signature = inspect.signature(function)
    except ValueError as exc:  # (posix_spawn's: python's own error)
        signature = exc
    print(repr(function), function.__name__, function.__module__, function is getattr(posix, name),
          pickle.loads(pickle.dumps(function)) is function, signature, flush=True)
os.execve(sys.executable, [sys.executable, "-c", CHILD], {**os.environ, "EXTRA": "1"})
"""


@pytest.mark.parametrize("pythonpath", [None, "site"])
def test_os_environ_is_the_programs_own(tmp_path, pythonpath):
    """graphlint gives the program's python its start-up folder first on PYTHONPATH and its
    report folder in GRAPHLINT_RUN: neither is in os.environ, os.environb or os.getenv, nor in
    what a Python subprocess sees (its own start-up hook hides them again), and the functions
    that give a child an environment read as the builtins."""
    env = {"PYTHONPATH": str(tmp_path / "prog" / pythonpath)} if pythonpath else {}
    py, ours = run_both(tmp_path, {"prog.py": ENVIRON, "site/.keep": ""}, ["prog.py"], env=env)
    assert py.stdout.splitlines()[2] == f"{env.get('PYTHONPATH')} False True".encode()
    assert_same(py, ours)


#: A child given each form of environment, or started after the program changed PYTHONPATH in
#: its own: whether it has graphlint's start-up hook.
FOLLOWED_FORMS = """\
import os, subprocess, sys
CHILD = "import os; print(type(os._exit).__name__ == '_Exit')"  # graphlint's hook
run = lambda env, **kw: print(subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                                             text=True, **kw).stdout.strip(), flush=True)
run(os.environ)
run({"PATH": os.environ.get("PATH", "")})
run({**os.environ, "PYTHONPATH": "src"})
run(dict(os.environ), close_fds=False)  # os.posix_spawn
os.environ["PYTHONPATH"] = "elsewhere"
run(None)
del os.environ["PYTHONPATH"]
os.system(sys.executable + " -c \\"" + CHILD + "\\"")
pid = os.posix_spawn(sys.executable, [sys.executable, "-c", CHILD], dict(os.environ))
os.waitpid(pid, 0)
os.execve(sys.executable, [sys.executable, "-c", CHILD], dict(os.environ))
"""


def test_a_child_given_any_environment_is_followed(tmp_path):
    """os.environ itself, a mapping of the program's own, a PYTHONPATH of its own,
    os.posix_spawn, os.execve, and the process's environment after the program set or unset
    PYTHONPATH (which put the program's value in it)."""
    (tmp_path / "prog.py").write_text(FOLLOWED_FORMS)
    proc = subprocess.run([GRAPHLINT, "run", "prog.py"], cwd=tmp_path, capture_output=True, timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [b"True"] * 8, proc.stdout


META_PATH = """\
import sys
print([type(f).__name__ for f in sys.meta_path])
import keras  # (the program's own: graphlint's engine starts)
print([type(f).__name__ for f in sys.meta_path], keras.X)
"""


def test_sys_meta_path_is_pythons_before_and_after_the_engine_starts(tmp_path):
    """graphlint's finders (the start-up hook's, the engine's import watcher) are consulted
    before sys.meta_path, not put on it."""
    py, ours = run_both(tmp_path, {"prog.py": META_PATH, "keras.py": "X = 1\n"}, ["prog.py"])
    assert py.returncode == 0 and py.stdout.endswith(b" 1\n"), py.stderr
    assert (ours.stdout, ours.returncode) == (py.stdout, py.returncode)
    assert b"graphlint: cannot watch Keras" in ours.stderr, ours.stderr  # (the engine started)


def test_dash_x_importtime_times_no_import_of_graphlints_engine(tmp_path):
    """``-X importtime``: the engine (started by the program's import of a ``keras.py`` of its
    own) imports graphlint's modules and pluggy through importlib's own ``__import__``, which
    the import system's timing never sees (some 40 lines before)."""
    py, ours = run_both(tmp_path, {"prog.py": "import keras\nprint(keras.X)\n", "keras.py": "X = 1\n"},
                        ["-X", "importtime", "prog.py"])
    assert (ours.stdout, ours.returncode) == (py.stdout, py.returncode) == (b"1\n", 0)
    assert b"graphlint: cannot watch Keras" in ours.stderr, ours.stderr  # (the engine started)
    timed = [line for line in ours.stderr.splitlines() if line.startswith(b"import time:")]
    assert timed and [line for line in timed if b"graphlint" in line or b"pluggy" in line] == []


def test_a_program_that_clears_the_atexit_handlers_ends_as_under_python(tmp_path):
    """graphlint's last report is an atexit handler: ``atexit._clear()`` took it away, no
    record was left and graphlint said "could not watch the program", exit 2 for a program
    that exited 3. Each process now leaves a record as it starts."""
    py, ours = run_both(tmp_path, {"prog.py": "import atexit, sys\natexit._clear()\nprint('hi')\nsys.exit(3)\n"},
                        ["prog.py"])
    assert (py.stdout, py.returncode) == (b"hi\n", 3)
    assert_same(py, ours)


def test_pythoninspect_is_the_programs_not_graphlints(tmp_path):
    """PYTHONINSPECT=1 asks the program's Python to stay after the script (a prompt on a
    terminal; a SystemExit printed as a traceback). graphlint's own Python read it too: its
    own SystemExit came out as a traceback, exit 1, after the report."""
    py, ours = run_both(tmp_path, {"prog.py": "x = 42\nprint('ran')\n", "exits.py": "raise SystemExit(5)\n"},
                        ["prog.py"], env={"PYTHONINSPECT": "1"})
    assert (py.stdout, py.returncode) == (b"ran\n", 0)
    assert_same(py, ours)
    py, ours = run_both(tmp_path, {"exits.py": "raise SystemExit(5)\n"}, ["exits.py"], env={"PYTHONINSPECT": "1"})
    assert py.returncode == 1 and py.stderr.endswith(b"SystemExit: 5\n")
    assert_same(py, ours)


def _starts(command: list[str], n: int, cwd) -> subprocess.CompletedProcess | None:
    """``command`` with ``n`` bytes of arguments after it (100,000 a string, as a kernel takes
    no longer one), run to its end; None when the system refuses them as too large (E2BIG)."""
    args = ["x" * 100_000] * (n // 100_000) + ["y" * (n % 100_000)]
    try:
        return subprocess.run(command + args, cwd=cwd, capture_output=True, text=True, timeout=HANG_GUARD,
                              stdin=subprocess.DEVNULL)
    except OSError as exc:
        if exc.errno != errno.E2BIG:
            raise
        return None


def _largest(command: list[str], low: int, high: int, cwd) -> int:
    """The most bytes of arguments ``command`` starts with, between ``low`` (it does) and
    ``high`` (it does not)."""
    while high - low > 1:
        middle = (low + high) // 2
        if _starts(command, middle, cwd) is None:
            high = middle
        else:
            low = middle
    return low


def test_arguments_at_the_systems_limit_are_one_line_naming_what_graphlint_adds(tmp_path):
    """The most arguments with which graphlint itself starts (a few bytes fewer than python):
    python runs the program with them, graphlint's child, given some 100 bytes more of
    environment (PYTHONPATH, GRAPHLINT_RUN), was refused by the system (E2BIG) and graphlint
    said "cannot start .../python3: Argument list too long", which named no cause."""
    (tmp_path / "p.py").write_text("import sys\nprint(len(sys.argv))\n")
    limit = os.sysconf("SC_ARG_MAX")
    python = _largest([PYTHON, "p.py"], 0, 2 * limit, tmp_path)
    assert 0 < python < 2 * limit
    # graphlint itself starts (and refuses a missing q.py) with as many bytes as it does with p.py
    ours = _largest([GRAPHLINT, "run", "q.py"], python - 4096, python + 1, tmp_path)
    assert _starts([PYTHON, "p.py"], ours, tmp_path).returncode == 0
    proc = _starts([GRAPHLINT, "run", "p.py"], ours, tmp_path)
    assert proc is not None
    if proc.returncode != 0:  # (graphlint adding nothing would run it as python does)
        one_line_error(proc, "E2BIG", "PYTHONPATH", "GRAPHLINT_RUN", "argv[0]")
