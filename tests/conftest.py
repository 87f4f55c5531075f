"""The tests' fixtures. The helpers are tests/harness.py's; the names below are re-exported
from here too, for the tests that import them from conftest."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

from harness import (  # noqa: F401  (re-exported)
    BATCH_PROGRAMS,
    CHECK_BAD,
    DRIVER_ENV,
    FRAMEWORK_DRIVERS,
    HEADER,
    PYTEST_ENV,
    ROOT,
    SAMPLE_PATHS,
    SAMPLES,
    STORY_BAD,
    STORY_FRAMEWORK,
    BatchProgram,
    assert_exactly_markers,
    expected_markers,
    install_plugin,
    is_bad_sample,
    line_of,
    only,
    read_runs,
    run_driver,
    run_in_process,
    sample_driver,
    sample_framework,
    sample_needs,
    sample_rule,
    samples_of,
    shared_folder,
    write_program,
)

pytest_plugins = ["pytester"]


def _bytecode_off() -> bool:
    return sys.flags.dont_write_bytecode or bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))


def _compile_the_tested_tree() -> None:
    """With ``PYTHONDONTWRITEBYTECODE`` set, every Python the suite starts (some 320 in the fast
    loop: the console script, LSP servers, sample drivers) would compile graphlint's modules
    from source again: 0.2 s of CPU a process instead of 0.13. So the controller (or the one
    process) compiles graphlint and the harness once, beside their sources, as an install or
    a first import would; Python reads bytecode that exists whatever the variable says. Test
    programs' folders and installed packages are left as they are."""
    if not _bytecode_off() or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    import compileall
    import importlib.util

    for folder in importlib.util.find_spec("graphlint").submodule_search_locations:
        compileall.compile_dir(folder, quiet=1)
    compileall.compile_file(str(Path(__file__).with_name("harness.py")), quiet=1)


_compile_the_tested_tree()


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """Collection keeps the test modules' rewritten bytecode (pytest's cache, beside them) even
    with ``PYTHONDONTWRITEBYTECODE`` set, so that each worker does not rewrite every test
    module's asserts anew (a few seconds a worker)."""
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = saved


def pytest_unconfigure(config):
    """The LSP fork server of this process, if a test started one (tests/server/
    lsp_forkserver.py), ended and waited for: its servers' CPU is the test run's."""
    if "lsp_forkserver" in sys.modules:
        sys.modules["lsp_forkserver"].end()


@pytest.fixture
def pytester(pytester, monkeypatch):
    """pytest's ``pytester``, its runs (in this process or a subprocess) without the unrelated
    plugins of the test extra (harness's ``PYTEST_ENV``)."""
    for name, value in PYTEST_ENV.items():
        monkeypatch.setenv(name, value)
    return pytester


@pytest.fixture
def run_sample():
    return run_in_process


@pytest.fixture
def graph_probes(monkeypatch) -> list:
    """The probe recorder: every ``GraphProbe`` made during the test, in order."""
    from graphlint.probes import tf_graph

    made = []
    init = tf_graph.GraphProbe.__init__

    def record(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(tf_graph.GraphProbe, "__init__", record)
    return made


@pytest.fixture
def pre_commit_snapshot(tmp_path):
    """For tests of the pre-commit hook: ``(pre-commit executable, environment, snapshot)``,
    the snapshot a committed git copy of this working tree (pre-commit installs from it;
    try-repo would not see uncommitted new files)."""
    import shutil
    import subprocess
    import sys

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    pre_commit = Path(sys.executable).with_name("pre-commit")
    assert pre_commit.exists(), "pre-commit is part of the test extra"
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env.pop("GRAPHLINT_DISABLE_PLUGINS", None)
    snapshot = tmp_path / "graphlint-src"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.split(b"\0")
    for rel in filter(None, listed):
        src = ROOT / rel.decode()
        if src.is_file():
            dst = snapshot / rel.decode()
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "snapshot"]):
        subprocess.run(cmd, cwd=snapshot, check=True, env=env)
    return pre_commit, env, snapshot


#: The environment and folder the sample batches start with: this process's as the session
#: starts, before any test changes them.
_BATCH_START = (dict(os.environ), os.getcwd())
# How many children of the batch's one Python run a batch side by side (forked once it imported
# its framework).
_BATCH_PARTS = {"tf2": 2, "jax": 1, "torch": 1}


def _batch_samples(kind: str) -> list[Path]:
    """The samples of the ``kind`` batch that this environment can run."""
    return [p for p in SAMPLE_PATHS if sample_driver(p) == kind and sample_needs(p) is None]


def _batch_writers(session, kind: str) -> dict:
    """The writers of the programs test modules add to the ``kind`` batch (harness's
    ``batch_programs``), of the modules with a selected test marked ``sample_batch(kind)``:
    name -> writer. Every worker collects the same tests, so all choose the same."""
    modules = {item.module.__name__ for item in session.items if hasattr(item, "module")
               and any(mark.args[0] == kind for mark in item.iter_markers("sample_batch"))}
    return {name: write for name, write in sorted(BATCH_PROGRAMS[kind].items()) if write.__module__ in modules}


def _sample_batch(tmp_path_factory, kind: str, paths: list[Path], writers: dict) -> Path | None:
    """The folder of the batch of ``kind``: samples ``paths``, then the programs ``writers``
    write (made once per test run: xdist's workers share it), or None when there are none."""
    if not paths and not writers:
        return None

    def make(folder: Path) -> None:
        programs, names, options = list(paths), {}, {}
        for name, write in writers.items():
            names[name] = {}
            for key, program in write(folder / "programs" / name).items():
                if not isinstance(program, BatchProgram):
                    program = BatchProgram(Path(program))
                names[name][key] = str(program.path)
                programs.append(program.path)
                if program.sys_path or program.env:
                    options[program.path] = {"sys_path": list(program.sys_path), "env": dict(program.env)}
        (folder / "programs.json").write_text(json.dumps(names))
        # The TF2 batch is the fast loop's longest chain (~40 s of CPU in one Python, its first
        # reader waited 12 s for it at the end): two children of one Python that imported
        # TensorFlow once each run every other program.
        run_driver(kind, programs, folder / "runs.json", start=_BATCH_START, options=options,
                   parts=_BATCH_PARTS[kind])

    return shared_folder(tmp_path_factory, f"samples-{kind}", make)


def pytest_collection_modifyitems(session, config, items):
    """The tests that read a sample batch go last (in their order): the batches start once the
    tests are collected and take a minute, so a worker that reached a reader early sat idle
    waiting for it while the other did the work (50 s of the fast loop's wall)."""
    readers = [item for item in items if item.get_closest_marker("sample_batch") is not None]
    if readers:
        chosen = set(map(id, readers))
        items[:] = [item for item in items if id(item) not in chosen] + readers


@pytest.fixture(scope="session", autouse=True)
def _sample_batches_started(request, tmp_path_factory):
    """Start, in the background, the sample batches that the collected tests read (marked
    ``sample_batch(kind)``), so that they run while other tests do: no worker then waits idle
    for a batch another is making, and none is left to the end. A batch that fails here is
    made again, in the open, by the first test that reads it."""
    kinds = sorted({mark.args[0] for item in request.session.items if "sample_runs" in item.fixturenames
                    for mark in item.iter_markers("sample_batch")})
    tmp_path_factory.getbasetemp()  # made here, once: never by two threads at a time
    # the samples are chosen here too, before any test runs (and patches what routing reads)
    threads = [threading.Thread(target=_sample_batch, daemon=True,
                                args=(tmp_path_factory, kind, _batch_samples(kind), _batch_writers(request.session, kind)))
               for kind in kinds]
    for thread in threads:
        thread.start()
    yield
    for thread in threads:
        thread.join()


@pytest.fixture(scope="session")
def _batches(request, tmp_path_factory):
    """``_batches(kind)``: the folder of the ``kind`` batch (``runs.json``, ``programs.json``),
    or None; made once per test run, xdist's workers share it."""
    done: dict[str, Path | None] = {}

    def folder(kind: str) -> Path | None:
        if kind not in done:
            done[kind] = _sample_batch(tmp_path_factory, kind, _batch_samples(kind), _batch_writers(request.session, kind))
        return done[kind]

    return folder


@pytest.fixture(scope="session")
def sample_runs(_batches):
    """``sample_runs(kind)``: every sample of a subprocess driver (``tf2``, ``jax``, ``torch``)
    that this environment can run, run once per test run (xdist's workers share it): sample
    path -> result. A test that reads it is marked ``sample_batch(kind)``."""
    done: dict[str, dict] = {}

    def runs(kind: str) -> dict:
        if kind not in done:
            folder = _batches(kind)
            done[kind] = {} if folder is None else read_runs(folder / "runs.json")
        return done[kind]

    return runs


@pytest.fixture(scope="session")
def batch_runs(_batches, sample_runs):
    """``batch_runs(kind, name)``: the results of the programs a test module added to the
    ``kind`` batch under ``name`` (harness's ``batch_programs``): key -> result (with its
    ``path``). A test that reads them is marked ``sample_batch(kind)``."""

    def runs(kind: str, name: str) -> dict:
        everything = sample_runs(kind)
        names = json.loads((_batches(kind) / "programs.json").read_text())[name]
        return {key: {**everything[path], "path": path} for key, path in names.items()}

    return runs
