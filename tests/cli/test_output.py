"""What `graphlint check` prints, as ruff users expect: concise/full, --quiet, --verbose after
the subcommand, colour, fixes shown ([*], --diff, --show-fixes, edits in JSON), stdin."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from graphlint.cli import main
from harness import CHECK_BAD

BAD = CHECK_BAD
FIXED = BAD.replace("with tf.Graph():", "with tf.Graph().as_default():")


@pytest.fixture
def bad(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text(BAD)
    return tmp_path / "bad.py"


def cli(*args, input=None, env=None):
    return CliRunner().invoke(main, ["check", "--no-cache", *args], input=input, env=env, catch_exceptions=False)


def test_concise_is_one_line_per_finding_and_full_the_default(bad):
    concise = cli("--output-format", "concise", "bad.py").stdout.splitlines()
    assert concise[:2] == [
        "bad.py:4:10: GL301 a new Session is created on every iteration of this loop",
        "bad.py:6:6: GL103 [*] `with` on a tf.Graph does not make it the default graph: ops built in this block "
        "still go to the global default graph",
    ]
    assert concise[2:] == ["graphlint: found 2 findings (1 error, 1 warning).", "graphlint: [*] 1 fixable with `--fix`."]
    full = cli("bad.py").stdout
    assert "    fix: Write `with tf.Graph().as_default():`" in full
    assert cli("--format", "text", "bad.py").stdout == full == cli("--output-format", "full", "bad.py").stdout


def test_quiet_prints_the_findings_and_nothing_else(bad):
    out = cli("-q", "--output-format", "concise", "bad.py")
    assert out.exit_code == 1 and len(out.stdout.splitlines()) == 2 and out.stderr == ""
    fixed = cli("--quiet", "--fix", "bad.py")
    assert fixed.stderr == "" and "graphlint:" not in fixed.stdout


def test_verbose_is_accepted_after_the_subcommand(bad):
    assert cli("--verbose", "bad.py").exit_code == 1
    assert CliRunner().invoke(main, ["--verbose", "check", "--no-cache", "bad.py"]).exit_code == 1


@pytest.mark.parametrize("args, env, colored", [
    (["--color", "always"], {}, True),
    (["--color", "never"], {"FORCE_COLOR": "1"}, False),
    ([], {"FORCE_COLOR": "1"}, True),
    ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ([], {}, False),  # not a terminal
])
def test_color_option_and_variables(bad, args, env, colored):
    out = cli(*args, "bad.py", env={"NO_COLOR": None, "FORCE_COLOR": None, **env}).stdout
    assert ("\x1b[" in out) is colored


def test_diff_prints_the_fix_changes_nothing_and_exits_1(bad):
    result = cli("--diff", "bad.py")
    assert result.exit_code == 1 and bad.read_text() == BAD
    assert result.stdout.splitlines()[:2] == ["--- bad.py", "+++ bad.py"]
    assert "-with tf.Graph():" in result.stdout and "+with tf.Graph().as_default():" in result.stdout
    assert result.stderr == "graphlint: would fix 1 finding in 1 file.\n"
    bad.write_text(FIXED)
    clean = cli("--diff", "bad.py")
    assert (clean.exit_code, clean.stdout) == (0, "")


def test_diff_with_exit_zero_exits_0(bad):
    """`--exit-zero`: exit 0 whatever was found, as ruff's `--diff --exit-zero` (it was 1)."""
    result = cli("--diff", "--exit-zero", "bad.py")
    assert result.exit_code == 0 and "+with tf.Graph().as_default():" in result.stdout
    assert bad.read_text() == BAD


def test_show_fixes_lists_what_was_fixed_per_file_and_code(bad):
    would = cli("--show-fixes", "bad.py")
    assert "graphlint: would fix 1 finding:\n- bad.py:\n    1 × GL103 (graph-not-default)" in would.stderr
    assert bad.read_text() == BAD
    done = cli("--fix", "--show-fixes", "bad.py")
    assert "graphlint: fixed 1 finding:\n- bad.py:\n    1 × GL103 (graph-not-default)" in done.stderr
    assert bad.read_text() == FIXED and "GL103" not in done.stdout


def test_json_carries_the_fix_edits(bad):
    doc = json.loads(cli("--output-format", "json", "bad.py").stdout)
    by_code = {f["code"]: f for f in doc["findings"]}
    assert by_code["GL301"]["fixable"] is False and "edits" not in by_code["GL301"]
    assert by_code["GL103"]["fixable"] is True
    assert by_code["GL103"]["edits"] == [
        {"content": ".as_default()", "location": {"line": 6, "column": 16}, "end_location": {"line": 6, "column": 16}}
    ]
    assert doc["summary"]["fixable"] == 1
    # the edit applied to the file is what --fix writes
    line = BAD.splitlines()[5]
    edit = by_code["GL103"]["edits"][0]
    assert line[: edit["location"]["column"] - 1] + edit["content"] + line[edit["end_location"]["column"] - 1:] == FIXED.splitlines()[5]


# -- stdin -------------------------------------------------------------------------------------
def test_check_dash_reads_stdin_as_the_stdin_filename(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pyproject.toml").write_text('[tool.graphlint]\nignore = ["GL301"]\n')
    result = cli("--stdin-filename", "pkg/buffer.py", "-", input=BAD)
    assert result.exit_code == 1
    assert result.stdout.startswith("pkg/buffer.py:6:6: GL103")  # its name, its folder's configuration
    assert "GL301" not in result.stdout and not (tmp_path / "pkg" / "buffer.py").exists()
    plain = cli("-", input=BAD)
    assert plain.exit_code == 1 and plain.stdout.startswith("-:4:10: GL301")


def test_stdin_with_fix_writes_the_fixed_source_to_stdout_and_the_rest_to_stderr(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("--fix", "--stdin-filename", "buffer.py", input=BAD)
    assert result.stdout == FIXED
    assert "buffer.py:4:10: GL301" in result.stderr and "GL103" not in result.stderr
    assert result.exit_code == 1 and not (tmp_path / "buffer.py").exists()


def test_stdin_wins_over_the_paths_named_with_it_and_each_is_said_ignored(bad):
    """As ruff: --stdin-filename (or `-`) reads stdin whatever else is named, with a warning
    for each path left out. They were: `--stdin-filename buf.py bad.py` checked bad.py and
    never read stdin (--fix rewrote bad.py where an editor waits for the fixed buffer on
    stdout), and `- bad.py` dropped bad.py without a word."""
    source = BAD.replace("with tf.Graph():", "with tf.Graph():  # from stdin")
    for args in (["--fix", "--stdin-filename", "buf.py", "bad.py"], ["--fix", "-", "bad.py"]):
        result = cli(*args, input=source)
        assert result.stdout == FIXED.replace("as_default():", "as_default():  # from stdin"), result.output
        assert "graphlint: warning: ignoring bad.py in favor of standard input" in result.stderr.splitlines()
        assert bad.read_text() == BAD
    result = cli("--output-format", "concise", "--stdin-filename", "buf.py", "bad.py", "-", input=BAD)
    assert result.exit_code == 1 and {line.split(":")[0] for line in result.stdout.splitlines()[:2]} == {"buf.py"}


def test_stdin_with_diff(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("--diff", "--stdin-filename", "buffer.py", "-", input=BAD)
    assert result.exit_code == 1 and "+with tf.Graph().as_default():" in result.stdout
