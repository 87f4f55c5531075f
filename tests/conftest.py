"""Shared test helpers: run a sample program in-process under graphlint, read its markers,
check a bad sample's findings against them, find a line, pick the one finding of a code,
write a small program."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
_MARK = re.compile(r"#.*?\b(GL\d{3})\b")

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


def expected_markers(path: Path) -> set[tuple[str, int]]:
    """The (code, line) pairs a sample declares with trailing comments like ``# GL101``."""
    expected = set()
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("#") or '"""' in line:
            continue
        for code in _MARK.findall(line):
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


def write_program(directory: Path, body: str, name: str = "prog.py", header: str = "") -> Path:
    """``header`` and the dedented ``body`` written to ``directory/name``."""
    path = directory / name
    path.write_text(header + textwrap.dedent(body))
    return path


def run_in_process(path: Path, *args: str, config=None):
    """Run ``path`` as ``__main__`` under instrumentation, in this process.

    Returns ``(findings, outcome)``. TensorFlow's default graph is reset first (a test's own
    choice; graphlint itself never resets anything) so that samples do not see each other.
    """
    import tensorflow as tf

    from graphlint.linter import Linter
    from graphlint.instrument import instrument
    from inprocess import run_main

    tf.compat.v1.reset_default_graph()
    linter = Linter(config)
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        with instrument(linter):
            outcome = run_main(path, args)
            findings = linter.finish(outcome.status)
    finally:
        os.chdir(cwd)
    return findings, outcome


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


def run_driver(kind: str, paths, out: Path, env=None, timeout=900, plain: bool = False) -> dict:
    """Run ``tests/sample_driver.py`` (``kind``: ``tf2``, ``jax`` or ``torch``) on sample ``paths`` in one
    subprocess; returns its JSON (sample path -> result) with the findings parsed."""
    import json
    import subprocess
    import sys

    from graphlint.findings import finding_from_dict

    command = [sys.executable, str(ROOT / "tests" / "sample_driver.py"), kind, *(["--plain"] if plain else [])]
    proc = subprocess.run(
        [*command, str(out), *map(str, paths)],
        capture_output=True, text=True, env={**os.environ, **DRIVER_ENV[kind], **(env or {})}, timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(out.read_text())
    for result in data.values():
        result["findings"] = [finding_from_dict(f) for f in result["findings"]]
    return data


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


@pytest.fixture(scope="session")
def sample_runs(tmp_path_factory):
    """``sample_runs(kind)``: every sample of a subprocess driver (``tf2``, ``jax``) that this
    environment can run, run once per test session: sample path -> result."""
    done: dict[str, dict] = {}

    def runs(kind: str) -> dict:
        if kind not in done:
            paths = [p for p in SAMPLE_PATHS if sample_driver(p) == kind and sample_needs(p) is None]
            done[kind] = run_driver(kind, paths, tmp_path_factory.mktemp(kind) / "runs.json") if paths else {}
        return done[kind]

    return runs


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
