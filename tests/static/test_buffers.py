"""The static engine on an editor's buffers: a source checked as its file's content, buffers
standing for the modules an analysis follows, and what a warm process keeps made afresh for
the files that changed (graphlint.static.buffers, graphlint.static.model.project.Project)."""

from __future__ import annotations

import py_compile
import shutil
from pathlib import Path

import pytest

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file
from graphlint.static.buffers import Project, check_source

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
RULES = [
    cls
    for cls in discover_rules(plugins=False).values()
    if cls.checks_statically()
]
EVERY_SAMPLE = sorted([*SAMPLES.rglob("*.py"), *SAMPLES.rglob("*.ipynb")])


@pytest.fixture
def workspace() -> Project:
    """One editor's workspace, as graphlint.server keeps one for its life."""
    return Project()


def findings(result):
    return [(f.code, f.location.line, f.location.column, f.location.cell, f.message) for f in result.findings]


@pytest.mark.parametrize("path", EVERY_SAMPLE, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_a_source_checked_for_its_path_gives_what_the_file_gives(path):
    from_file = check_file(str(path), RULES, Config())
    from_source = check_source(str(path), path.read_bytes(), RULES, Config())
    assert findings(from_source) == findings(from_file)
    assert from_source.edits == from_file.edits


def test_the_file_itself_is_not_read(tmp_path):
    path = tmp_path / "gl103.py"
    path.write_text("print('the file on disk is fine')\n")
    source = (SAMPLES / "rules" / "gl103_bad.py").read_bytes()
    assert [f.code for f in check_source(str(path), source, RULES, Config()).findings] == ["GL103"]


def test_a_broken_buffer_is_gl001_even_where_the_bytecode_cache_matches_the_file(tmp_path):
    """The interpreter's cache names the file by mtime and size: a buffer of the same size
    that does not compile is not proven by it."""
    path = tmp_path / "plain.py"
    path.write_text("x = (1)\n")
    py_compile.compile(str(path))
    broken = b"x = (1(\n"
    assert len(broken) == path.stat().st_size
    result = check_source(str(path), broken, RULES, Config())
    assert [(f.code, f.location.line) for f in result.findings] == [("GL001", 1)]
    assert check_file(str(path), RULES, Config()).findings == []


def test_a_source_too_large_is_one_gl001(tmp_path):
    from graphlint.static.engine import MAX_BYTES

    result = check_source(str(tmp_path / "big.py"), b"#" * (MAX_BYTES + 1), RULES, Config())
    assert [f.code for f in result.findings] == ["GL001"]
    assert result.findings[0].message == "file too large to check (10 MB; the limit is 10 MiB)"


def test_stdin_too_large_is_the_engines_gl001_of_an_unknown_size(tmp_path):
    """stdin is read only up to past the limit (it may never end): its GL001 names no size,
    made by the engine's one function for a source too large."""
    from click.testing import CliRunner

    from graphlint.cli import main
    from graphlint.static.engine import MAX_BYTES, too_large

    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", "-"], input=b"#" * (MAX_BYTES + 5))
    assert result.stdout.startswith("-:1:1: GL001 source too large to check (more than the limit of 10 MiB)\n")
    assert too_large("-", None, MAX_BYTES, "source").message == "source too large to check (more than the limit of 10 MiB)"


@pytest.fixture
def across(tmp_path) -> Path:
    for name in ("gl501_bad_across_modules.py", "retracing_steps.py"):
        shutil.copy(SAMPLES / "across_modules" / name, tmp_path / name)
    return tmp_path


def codes(path: Path, workspace: Project) -> list[str]:
    return [f.code for f in check_source(str(path), path.read_bytes(), RULES, Config(), workspace).findings]


def test_a_buffer_stands_for_its_module_where_an_analysis_follows_an_import(across, workspace):
    main, steps = across / "gl501_bad_across_modules.py", across / "retracing_steps.py"
    assert codes(main, workspace) == ["GL501"]
    unsaved = steps.read_text().replace("@tf.function\ndef train_step", "def train_step")
    assert workspace.set_source(str(steps), unsaved.encode()) == {str(main)}
    assert codes(main, workspace) == []
    assert workspace.set_source(str(steps), None) == {str(main)}
    assert codes(main, workspace) == ["GL501"]


def test_a_module_changed_on_disk_is_read_again_once_said_changed(across, workspace):
    main, steps = across / "gl501_bad_across_modules.py", across / "retracing_steps.py"
    assert codes(main, workspace) == ["GL501"]
    steps.write_text(steps.read_text().replace("@tf.function\ndef train_step", "def train_step"))
    assert codes(main, workspace) == ["GL501"]  # the model parsed before is kept: nothing read again
    assert workspace.changed([str(steps)]) == {str(main)}
    assert codes(main, workspace) == []


def test_dependents_are_found_through_the_modules_between(tmp_path, workspace):
    """a.py runs b.run() in a session loop, b.run() calls c.make(), which builds the op."""
    (tmp_path / "c.py").write_text("import tensorflow as tf\n\ndef make(x):\n    return tf.add(x, 1)\n")
    (tmp_path / "b.py").write_text("from c import make\n\ndef run(x):\n    return make(x)\n")
    (tmp_path / "a.py").write_text(
        "import tensorflow as tf\nfrom b import run\n\nx = tf.compat.v1.placeholder(tf.float32)\n"
        "sess = tf.compat.v1.Session()\nfor i in range(100):\n    sess.run(run(x), {x: i})\n"
    )
    a, b, c = (str(tmp_path / name) for name in ("a.py", "b.py", "c.py"))
    assert codes(tmp_path / "a.py", workspace) == ["GL102"]
    assert workspace.dependents({c}) == {a, b}
    assert workspace.dependents({a}) == set()
    assert workspace.set_source(c, b"def make(x):\n    return x + 1\n") == {a, b}
    assert codes(tmp_path / "a.py", workspace) == []


def test_a_module_that_appears_is_found_once_said_so(tmp_path, workspace):
    main = tmp_path / "main.py"
    main.write_text("import tensorflow as tf\nfrom steps import step\n\nfor n in range(9):\n    step(tf.ones([2]), n)\n")
    assert codes(main, workspace) == []
    (tmp_path / "steps.py").write_text("import tensorflow as tf\n\n@tf.function\ndef step(x, n):\n    return x * n\n")
    workspace.changed([str(tmp_path / "steps.py")], appeared=True)
    assert codes(main, workspace) == ["GL501"]


def test_a_buffer_stands_for_its_file_only_in_its_own_workspace(across, workspace):
    main, steps = across / "gl501_bad_across_modules.py", across / "retracing_steps.py"
    unsaved = steps.read_text().replace("@tf.function\ndef train_step", "def train_step")
    workspace.set_source(str(steps), unsaved.encode())
    assert codes(main, workspace) == []
    assert codes(main, Project()) == ["GL501"]  # another workspace reads the file on disk
