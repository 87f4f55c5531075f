"""The tests' one harness: where things are, how a sample declares its findings, one way to
write a program, one way to run it in this process (and, where a fresh process is the point,
one subprocess driver: tests/sample_driver.py), how the console script is run, and how a
sample is routed to the framework it needs.

Test modules import from here (``from harness import ...``), never from another test module;
the fixtures are tests/conftest.py's. Nothing here imports a framework at import time: the
sample driver runs in a process that must not import TensorFlow for JAX and PyTorch programs.
"""

from __future__ import annotations

import builtins
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import traceback
import types
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
#: The precision cases of ``graphlint check`` (issue 9): one small program each, its findings
#: marked like a sample's; a case without markers must stay silent.
CASES = ROOT / "tests" / "static" / "cases"
#: The console script, beside this interpreter (as a user runs it).
GRAPHLINT = os.path.join(os.path.dirname(sys.executable), "graphlint")
TF_ENV = {"TF_CPP_MIN_LOG_LEVEL": "3"}
#: seconds: the one timeout of every command a test starts, a hang guard only: a run that
#: ends (however slowly, on however busy a machine) never reaches it. (240 s was reached by
#: test_subprocesses_are_followed_... at load 18 on 2 cores: a failure of the machine's speed.)
HANG_GUARD = 1800
#: The environment of a pytest the tests start (a user's test run, pytester's or a subprocess):
#: the test extra's plugins that have nothing to do with graphlint's stay out. pytest loads
#: every installed plugin at start; pytest-lsp (the server tests' client, it builds lsprotocol's
#: types), pytest-asyncio and hypothesis's cost a fresh pytest 1.5 s of its 2.4 s of CPU.
PYTEST_ENV = {"PYTEST_ADDOPTS": " ".join(
    filter(None, [os.environ.get("PYTEST_ADDOPTS"), "-p no:pytest-lsp -p no:asyncio -p no:hypothesispytest"]))}
#: a file time for the members of zip archives, so that both runs make the same archive
ZIP_TIME = 946_684_800  # 2000-01-01
_TF_LOG = re.compile(rb"^(?:[IWE]\d{4} .*|WARNING: All log messages before absl.*)\n", re.M)

#: The TF1 header of the small programs of the static tests (``tf1`` as real code spells it).
HEADER = "import tensorflow as tf\n\ntf1 = tf.compat.v1\n"
#: A small file with two findings of `graphlint check`: GL301 at 4:10, GL103 (fixable) at 6:6.
CHECK_BAD = textwrap.dedent(
    """\
    import tensorflow as tf

    for i in range(3):
        with tf.compat.v1.Session() as s:
            pass
    with tf.Graph():
        pass
    """
)

#: A module of a tree: ``forecast`` builds and runs a model per call (GL101 when called in a
#: loop from another module), ``forecast_in_own_graph`` builds it in a fresh graph each time.
FORECASTER = """
import tensorflow as tf

tf1 = tf.compat.v1


def forecast(x):
    inputs = tf1.placeholder(tf.float32, [None, 4])
    prediction = tf.reduce_sum(inputs, axis=1)
    with tf1.Session() as sess:
        return sess.run(prediction, {inputs: x})


def forecast_in_own_graph(x):
    with tf.Graph().as_default():
        inputs = tf1.placeholder(tf.float32, [None, 4])
        prediction = tf.reduce_sum(inputs, axis=1)
        with tf1.Session() as sess:
            return sess.run(prediction, {inputs: x})
"""


# -- markers: a program declares its findings with trailing ``# GLnnn`` comments ----------------
_CODE = re.compile(r"\bGL\d{3}\b")


def expected_markers(path: Path) -> set[tuple[str, int]]:
    """The (code, line) pairs a sample declares with trailing comments like ``# GL101`` (two
    findings on one line: ``# GL202 GL102``); comment lines and docstrings declare nothing."""
    expected = set()
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("#") or '"""' in line or "#" not in line:
            continue
        for code in _CODE.findall(line[line.index("#"):]):
            expected.add((code, lineno))
    return expected


def assert_exactly_markers(path: Path, findings) -> None:
    """A bad sample's findings are exactly its ``# GLnnn`` markers, each at a line of the
    sample itself (never a framework's), with a fix, its related sites in the sample too."""
    expected = expected_markers(path)
    assert expected, f"{path.name} declares no # GLnnn marker"
    got = {(f.code, f.location.line) for f in findings if f.location.path == str(path)}
    assert got == expected, "\n".join(f"{f.location.path}:{f.location.line} {f.code} {f.message}" for f in findings)
    n_lines = len(path.read_text().splitlines())
    for f in findings:
        assert f.location.path == str(path), f"finding outside the sample: {f.location}"
        assert 1 <= f.location.line <= n_lines
        assert f.fix.strip(), f
        for related in f.related:
            assert related.location.path == str(path), f"related site outside the sample: {related.location}"


def line_of(path: Path, needle: str, nth: int | None = None) -> int:
    """The line of ``path`` containing ``needle``: the only one, or the ``nth`` (1-based)."""
    hits = [n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line]
    if nth is None:
        assert len(hits) == 1, (needle, hits)
        return hits[0]
    assert len(hits) >= nth, f"{needle!r} not found {nth} times in {path.name}"
    return hits[nth - 1]


def only(findings, code: str):
    """The one finding of ``code`` (the assertion lists them all when there is not one)."""
    found = [f for f in findings if f.code == code]
    assert len(found) == 1, [(f.code, f.location.line, f.message) for f in findings]
    return found[0]


# -- the one file writer ----------------------------------------------------------------------
def write_program(directory: Path, body: str, name: str = "prog.py", header: str = "") -> Path:
    """``header`` and the dedented ``body`` written to ``directory/name`` (its folders made)."""
    path = Path(directory) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + textwrap.dedent(body))
    return path


# -- running a program in this process ----------------------------------------------------------
@dataclass
class Outcome:
    """How the program ended."""

    status: int = 0
    failed: bool = False
    namespace: dict | None = None


def exit_status(code) -> int:
    """python's exit status for ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def run_main(path, args=()) -> Outcome:
    """Run the file ``path`` as ``__main__`` with ``args``, as python would (its folder first on
    ``sys.path``), under whatever instrumentation the caller set up; the program's traceback
    is printed; ``sys`` is restored afterwards. (``graphlint run`` itself starts a Python of
    its own: graphlint.runner; tests/runtime/ checks that one.)

    The program's globals are kept until the caller has its findings, also when it raised
    (under ``graphlint run`` the rules judge at exit, while ``__main__`` still exists)."""
    path = os.path.abspath(str(path))
    saved_argv, saved_path, saved_main = sys.argv[:], sys.path[:], sys.modules.get("__main__")
    outcome = Outcome()
    main = types.ModuleType("__main__")
    main.__file__, main.__builtins__, main.__cached__ = path, builtins, None
    outcome.namespace = main.__dict__
    try:
        sys.argv = [path, *map(str, args)]
        sys.path.insert(0, os.path.dirname(os.path.realpath(path)))
        sys.modules["__main__"] = main
        with open(path, "rb") as fh:
            code = compile(fh.read(), path, "exec", dont_inherit=True)
        exec(code, main.__dict__)
    except SystemExit as exc:
        outcome.status = exit_status(exc.code)
    except BaseException:  # the program's own error, as python would print it
        traceback.print_exc()
        outcome.status = 1
    finally:
        sys.stdout.flush()
        sys.argv, sys.path[:] = saved_argv, saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
    outcome.failed = outcome.status != 0
    return outcome


def run_linted(path: Path, *args: str, config=None, rules=None, warn=None, reset_tf1: bool = False):
    """Run ``path`` as ``__main__`` under instrumentation with fresh rules (as ``graphlint run``
    would), in this process, from the program's folder: ``(findings, outcome)``.

    ``rules``: the rule classes (default: every installed one); ``warn``: where graphlint's
    warnings go (default: stderr); ``reset_tf1``: TensorFlow's default graph is reset first."""
    from graphlint.instrument import instrument
    from graphlint.linter import Linter

    if reset_tf1:
        import tensorflow as tf

        tf.compat.v1.reset_default_graph()
    linter = Linter(config, rules=rules, warn=warn)
    cwd = os.getcwd()
    os.chdir(os.path.dirname(os.path.abspath(path)))
    try:
        with instrument(linter, warn=warn):
            outcome = run_main(path, args)
            findings = linter.finish(outcome.status)
    finally:
        os.chdir(cwd)
    return findings, outcome


def run_in_process(path: Path, *args: str, config=None):
    """Run ``path`` as ``__main__`` under instrumentation, in this process.

    Returns ``(findings, outcome)``. TensorFlow's default graph is reset first (a test's own
    choice; graphlint itself never resets anything) so that samples do not see each other.
    """
    return run_linted(path, *args, config=config, reset_tf1=True)


# -- the console script and `graphlint check` -----------------------------------------------------
def gl(*args, cwd=None, timeout=HANG_GUARD, prefix=(), env=None, **kw):
    """Run the console script; returns the CompletedProcess (text, both streams captured)."""
    environ = dict(os.environ, **(env or {}))
    return subprocess.run(
        [*prefix, GRAPHLINT, *map(str, args)],
        cwd=cwd,
        timeout=timeout,
        capture_output=True,
        text=True,
        env=environ,
        **kw,
    )


def one_line_error(proc, *fragments):
    """Exit 2, stderr is exactly one ``graphlint: error:`` line containing each fragment
    (``proc``: a finished subprocess, or the Result of :func:`cli`)."""
    lines = proc.stderr.strip().splitlines()
    status = proc.returncode if hasattr(proc, "returncode") else proc.exit_code
    assert status == 2, (status, proc.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("graphlint: error: "), proc.stderr[-2000:]
    for fragment in fragments:
        assert fragment in lines[0]


def unprivileged():
    """A command prefix under which file permissions apply (root ignores them)."""
    import pytest

    if os.geteuid() != 0:
        return ()
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: permissions cannot be tested")
    return ("setpriv", "--bounding-set", "-dac_override,-dac_read_search")


def cli(*args, **kwargs):
    """``graphlint ARGS`` in this process (click's CliRunner): its Result."""
    from click.testing import CliRunner

    from graphlint.cli import main

    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


def check(*args, cwd=None):
    """Run `graphlint check` in-process; returns (exit code, stdout, stderr)."""
    from click.testing import CliRunner

    from graphlint.cli import main

    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, ["check", *map(str, args)], catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


def check_json(*args, cwd=None):
    """Run `graphlint check --format json`; returns (exit code, findings)."""
    code, out, _ = check("--format", "json", *args, cwd=cwd)
    return code, json.loads(out)["findings"]


def found(*args, cwd=None) -> set[tuple[str, int]]:
    """The (code, line) pairs `graphlint check ARGS` reports."""
    _, findings = check_json(*args, cwd=cwd)
    return {(f["code"], f["line"]) for f in findings}


# -- a program run both ways: `python` and `graphlint run` ------------------------------------------
with open(GRAPHLINT, "rb") as _script:  # the interpreter graphlint runs on, and runs programs with
    PYTHON = _script.readline()[2:].decode().strip()


def tf_quiet(data: bytes) -> bytes:
    """stderr without TensorFlow's C++ log lines (they carry timestamps and thread ids)."""
    return _TF_LOG.sub(b"", data)


@dataclass
class Ran:
    stdout: bytes
    stderr: bytes
    returncode: int
    files: dict[str, bytes]
    report: dict | None = None

    @property
    def codes(self) -> list[tuple[str, int]]:
        return sorted((f["code"], f["line"]) for f in (self.report or {}).get("findings", []))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def write_folder(folder: Path, files: dict[str, str | bytes]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    for name, content in files.items():
        if isinstance(content, str):
            write_program(folder, content, name)
        else:
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)


def run_both(tmp_path: Path, files: dict, args: list[str], *, stdin: bytes | None = None, env=None,
             graphlint_options=(), prepare=None, preexec_fn=None) -> tuple[Ran, Ran]:
    """``files`` written to a fresh folder, then ``python ARGS`` and ``graphlint run ARGS`` there,
    each from the same starting files; ``prepare(folder)`` runs after the files are written,
    ``preexec_fn`` in each command's process before it starts (what a caller such as ``nohup``
    leaves it)."""
    folder = tmp_path / "prog"
    report = tmp_path / "report.json"
    environ = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    environ.update(env or {})
    runs = []
    for command in (
        [PYTHON, *args],
        [GRAPHLINT, "run", "--exit-zero", "--format", "json", "--output", str(report), *graphlint_options, *args],
    ):
        write_folder(folder, files)
        if prepare is not None:
            prepare(folder)
        if report.exists():
            report.unlink()
        proc = subprocess.run(command, cwd=folder, input=stdin, capture_output=True, env=environ,
                              timeout=HANG_GUARD, stdin=None if stdin is not None else subprocess.DEVNULL,
                              preexec_fn=preexec_fn)
        runs.append(Ran(proc.stdout, proc.stderr, proc.returncode, snapshot(folder),
                        json.loads(report.read_text()) if report.exists() else None))
    return runs[0], runs[1]


def assert_same(py: Ran, ours: Ran, *, tf: bool = False) -> None:
    """``graphlint run`` printed, wrote and returned what ``python`` did, and its report says so."""
    quiet = tf_quiet if tf else (lambda b: b)
    assert ours.stdout == py.stdout
    assert quiet(ours.stderr) == quiet(py.stderr), ours.stderr.decode(errors="replace")[-3000:]
    assert ours.files == py.files
    assert ours.returncode == py.returncode, ours.stderr.decode(errors="replace")[-3000:]
    assert ours.report is not None, "graphlint wrote no report"
    program = ours.report["program"]
    if py.returncode < 0:
        assert program == {"exit_status": None, "signal": signal.Signals(-py.returncode).name}
    else:
        assert program == {"exit_status": py.returncode, "signal": None}


# -- the samples: every bad program and its good twin, and how each runs ------------------------
#: How a program of each framework runs: ``tf1`` in this process (``run_in_process``); ``tf2``
#: (TF2, Keras) in one eager subprocess, since TF1 samples turn eager execution off for the
#: whole process; ``jax`` and ``torch`` each in one subprocess that never imports TensorFlow.
#: The subprocesses are ``tests/sample_driver.py``.
FRAMEWORK_DRIVERS = {
    "tensorflow-v1": "tf1", "tensorflow": "tf2", "keras": "tf2", "tf-keras": "tf2", "jax": "jax", "torch": "torch",
}
DRIVER_ENV = {
    "tf2": {"TF_CPP_MIN_LOG_LEVEL": "3"},
    "jax": {"JAX_PLATFORMS": "cpu"},
    "torch": {"TORCHINDUCTOR_COMPILE_THREADS": "1"},  # inductor compiles in-process: no worker pool
}
#: The story's programs: a bad one, its fix that is still bad, and the right one (TF1 programs).
STORY_BAD = {"forecast_1_rebuilt.py", "forecast_2_reuse_fix.py"}
STORY_FRAMEWORK = "tensorflow-v1"
SAMPLE_PATHS = sorted(
    p for folder in ("rules", "runtime", "story", "jax", "torch") for p in (SAMPLES / folder).glob("*.py")
)
_SAMPLE_CODE = re.compile(r"^(gl\d{3})(?:_|$)")


def run_driver(kind: str, paths, out: Path, env=None, timeout=HANG_GUARD, start=None,
               options: dict | None = None, parts: int = 1) -> dict:
    """Run ``tests/sample_driver.py`` (``kind``: ``tf2``, ``jax`` or ``torch``) on sample ``paths`` in one
    subprocess; returns its JSON (sample path -> result) with the findings parsed.

    ``start``: ``(environment, folder)`` to start it with instead of this process's current ones
    (a batch started in a background thread must not see what a running test has changed);
    ``options``: program path -> what it alone runs with (``sys_path``, ``env``: the driver's
    ``--options``); ``parts``: how many children forked from the one process run them side by
    side (the driver's ``--parts``)."""
    command = [sys.executable, str(ROOT / "tests" / "sample_driver.py"), kind]
    if options:
        Path(f"{out}.options.json").write_text(json.dumps({str(p): o for p, o in options.items()}))
        command += ["--options", f"{out}.options.json"]
    if parts != 1:
        command += ["--parts", str(parts)]
    environ, cwd = start if start is not None else (os.environ, None)
    proc = subprocess.run(
        [*command, str(out), *map(str, paths)],
        capture_output=True, text=True, env={**environ, **DRIVER_ENV[kind], **(env or {})}, timeout=timeout, cwd=cwd,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return read_runs(out)


def read_runs(out: Path) -> dict:
    """The JSON of a ``tests/sample_driver.py`` run (sample path -> result), findings parsed."""
    from graphlint.findings import finding_from_dict

    data = json.loads(Path(out).read_text())
    for result in data.values():
        result["findings"] = [finding_from_dict(f) for f in result["findings"]]
    return data


@dataclass(frozen=True)
class BatchProgram:
    """A test module's program run in a sample batch: its path, and what it alone runs with
    (folders first on ``sys.path``, environment variables)."""

    path: Path
    sys_path: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


#: The programs test modules add to a sample batch (its one TensorFlow import serves them
#: too): kind -> name -> ``write(folder) -> {key: Path or BatchProgram}``, registered with
#: :func:`batch_programs`; tests/conftest.py's ``batch_runs(kind, name)`` gives the results.
BATCH_PROGRAMS: dict[str, dict[str, object]] = {"tf2": {}, "jax": {}, "torch": {}}


def batch_programs(kind: str, name: str):
    """Register ``write(folder)`` (a decorator): the programs it writes under ``folder`` run in
    the ``kind`` sample batch, once per test run, after the samples. A test reading them is
    marked ``sample_batch(kind)``."""
    def register(write):
        BATCH_PROGRAMS[kind][name] = write
        return write

    return register


def shared_folder(tmp_path_factory, name: str, make) -> Path:
    """The folder ``name`` that ``make(folder)`` fills once per test run, shared by pytest-xdist's
    workers: the first to ask makes it while the others wait, so that a batch of programs run
    in a subprocess (a TensorFlow import, seconds) is run once, not once per worker."""
    import fcntl

    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    base = tmp_path_factory.getbasetemp()
    root = base.parent / f"shared-{run}" if run else base / "shared"
    root.mkdir(exist_ok=True)
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not (root / f"{name}.done").exists():
            if folder.exists():
                shutil.rmtree(folder)  # a worker that failed to make it left it half made
            folder.mkdir()
            make(folder)
            (root / f"{name}.done").touch()
    return folder


def sample_rule(path: Path):
    """The rule a sample is of, by the code its name starts with (``gl101_bad.py``), or None."""
    from graphlint.registry import discover_rules

    match = _SAMPLE_CODE.match(path.stem)
    return discover_rules(plugins=False).get(match.group(1).upper()) if match else None


def samples_of(code: str) -> list[Path]:
    """A rule's samples, found by its code: every ``samples/**/<code>_*.py``."""
    return sorted(SAMPLES.glob(f"**/{code.lower()}_*.py"))


def sample_framework(path: Path) -> str:
    """The framework a sample is a program of: the one of its rule's declared frameworks its
    name names (``gl201_keras_bad.py``, ``gl501_jax_bad_shape.py``; the longest), else the
    rule's first."""
    rule = sample_rule(path)
    if rule is None:
        return STORY_FRAMEWORK
    named = [f for f in rule.frameworks if f"_{f.replace('-', '_')}" in path.stem]
    return max(named, key=len) if named else rule.frameworks[0]


def sample_driver(path: Path) -> str:
    return FRAMEWORK_DRIVERS[sample_framework(path)]


def is_bad_sample(path: Path) -> bool:
    return "_bad" in path.name or path.name in STORY_BAD


def sample_needs(path: Path) -> str | None:
    """The optional package a sample needs and this environment lacks, if any."""
    import importlib.util

    needs = [sample_driver(path)] if sample_driver(path) in ("jax", "torch") else []
    if "tf_keras" in path.read_text():
        needs.append("tf_keras")
    return next((package for package in needs if importlib.util.find_spec(package) is None), None)


# -- third-party rules ------------------------------------------------------------------------------
def install_plugin(site: Path, module: str, source: str, entry_points: dict[str, str]) -> Path:
    """A distribution of third-party rules in folder ``site`` (put it on the path to use it):
    ``module.py`` holding ``source``, and its ``graphlint`` entry points (code -> class)."""
    info = site / f"{module}-0.1.dist-info"
    info.mkdir(parents=True)
    (site / f"{module}.py").write_text(source)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    lines = "".join(f"{code} = {module}:{cls}\n" for code, cls in entry_points.items())
    (info / "entry_points.txt").write_text("[graphlint]\n" + lines)
    return site
