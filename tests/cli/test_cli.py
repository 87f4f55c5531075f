"""`graphlint run`, `rules`, `rule`: exit codes, formats, options, bad input (in-process via CliRunner;
`run` starts the program's own Python, so the cases whose program imports TensorFlow are slow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from graphlint.cli import main
from harness import write_program

GRAPH_NOT_DEFAULT = """\
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
tf.compat.v1.reset_default_graph()
with tf.Graph():
    x = tf.constant(1.0) + 1.0
print("computed", 2 + 2)
"""

CLEAN = """\
import sys
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
g = tf.Graph()
with g.as_default():
    y = tf.constant(3.0) * 2.0
with tf.compat.v1.Session(graph=g) as sess:
    print(sess.run(y), sys.argv[1:], __name__)
"""


@pytest.fixture
def cli():
    return CliRunner()


@pytest.fixture
def program(tmp_path):
    def write(source: str, name: str = "prog.py"):
        return write_program(tmp_path, source, name)

    return write


def invoke(cli, *args):
    return cli.invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_version(cli):
    result = invoke(cli, "--version")
    assert result.exit_code == 0 and "graphlint, version" in result.output


def test_rules_lists_every_code(cli):
    result = invoke(cli, "rules")
    codes = [line.split()[0] for line in result.output.splitlines()]
    assert codes == sorted(codes)
    builtin = ["GL000", "GL001", "GL101", "GL102", "GL103", "GL201", "GL202", "GL203", "GL204",
               "GL301", "GL302", "GL303", "GL401", "GL501", "GL502", "GL503", "GL504"]
    for code in builtin:
        assert code in codes, code


@pytest.mark.parametrize("query", ["GL101", "gl101", "graph-rebuilt"])
def test_rule_prints_its_documentation_sections(cli, query):
    result = invoke(cli, "rule", query)
    assert result.exit_code == 0
    for section in ["## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix"]:
        assert section in result.output


def test_rule_unknown_code_is_one_line_and_exit_2(cli):
    result = cli.invoke(main, ["rule", "GL999"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == ["graphlint: error: unknown rule 'GL999' (see `graphlint rules`)"]


@pytest.mark.slow
def test_ignore_select_and_extend_select(cli, program):
    """(The report on stderr, the exit codes and --exit-zero: tests/runtime/test_run_reports.py's
    test_exit_codes, with each program's own Python.)"""
    path = program(GRAPH_NOT_DEFAULT)
    result = invoke(cli, "run", "--ignore", "GL1", path)
    assert result.exit_code == 0 and "GL103" not in result.stderr
    result = invoke(cli, "run", "--select", "GL2", path)
    assert result.exit_code == 0
    result = invoke(cli, "run", "--select", "GL2", "--extend-select", "GL103", path)
    assert result.exit_code == 1 and "GL103" in result.stderr


@pytest.mark.slow
def test_noqa_on_the_reported_line_suppresses_runtime_finding(cli, program):
    path = program(GRAPH_NOT_DEFAULT.replace("with tf.Graph():", "with tf.Graph():  # noqa: GL103"))
    assert invoke(cli, "run", path).exit_code == 0
    path = program(GRAPH_NOT_DEFAULT.replace("with tf.Graph():", "with tf.Graph():  # noqa: GL101"), "other.py")
    assert invoke(cli, "run", path).exit_code == 1


def test_program_failure_exits_with_its_status_and_its_traceback(cli, program):
    path = program("print('before')\nraise RuntimeError('boom')\n")
    result = invoke(cli, "run", path)
    assert result.exit_code == 1
    assert result.stdout == "before\n"
    assert "RuntimeError: boom" in result.stderr
    assert 'line 2, in <module>' in result.stderr
    assert "graphlint" not in result.stderr.split("RuntimeError")[0].replace("graphlint: ", "")


@pytest.mark.parametrize("status,expected", [(0, 0), (5, 5), ("'bye'", 1)])
def test_sys_exit_status(cli, program, status, expected):
    path = program(f"import sys\nsys.exit({status})\n")
    assert invoke(cli, "run", path).exit_code == expected


@pytest.mark.slow
def test_json_format_to_output_file(cli, program, tmp_path):
    path = program(GRAPH_NOT_DEFAULT)
    out = tmp_path / "report.json"
    result = invoke(cli, "run", "--format", "json", "--output", out, path)
    assert result.exit_code == 1
    assert "GL103" not in result.stderr
    doc = json.loads(out.read_text())
    assert set(doc) == {"version", "findings", "summary", "program"}
    assert doc["program"] == {"exit_status": 0, "signal": None}
    assert doc["version"] == 1
    (finding,) = doc["findings"]
    assert set(finding) == {"code", "name", "severity", "message", "path", "line", "column", "end_line", "end_column",
                            "related", "fix", "fixable"}
    assert (finding["code"], finding["name"], finding["severity"], finding["line"]) == ("GL103", "graph-not-default", "error", 4)
    assert doc["summary"] == {"findings": 1, "by_code": {"GL103": 1}, "fixable": 0}


@pytest.mark.slow
def test_pyproject_thresholds_and_per_file_ignores(cli, program, tmp_path):
    path = program(GRAPH_NOT_DEFAULT)
    (tmp_path / "pyproject.toml").write_text('[tool.graphlint.per-file-ignores]\n"prog.py" = ["GL103"]\n')
    assert invoke(cli, "run", path).exit_code == 0
    (tmp_path / "pyproject.toml").write_text('[tool.graphlint]\nignore = ["GL103"]\n')
    assert invoke(cli, "run", path).exit_code == 0


def test_a_pyproject_that_is_not_ours_is_a_root_and_nothing_more(tmp_path, monkeypatch):
    """A project's pyproject.toml with no [tool.graphlint] (which would spell the name) gives
    the root and no settings, even where it is no TOML graphlint could read; a quoted key that
    spells the name with escapes is read."""
    import graphlint.config as config_module

    sub = tmp_path / "src"
    sub.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project\nname = 'x'\n")  # broken, and not ours
    config = config_module.load(start=str(sub))
    assert config.root == str(tmp_path) and config.select == config_module.Config().select
    (tmp_path / "pyproject.toml").write_text('[tool."graph\\u006cint"]\nignore = ["GL103"]\n')
    assert config_module.load(start=str(sub)).ignore == ["GL103"]
    (tmp_path / "pyproject.toml").write_text("[tool.graphlint\n")  # ours, and broken: one line, exit 2
    with pytest.raises(config_module.ConfigError, match="invalid TOML"):
        config_module.load(start=str(sub))


def test_module_mode_runs_like_python_dash_m(cli, tmp_path, monkeypatch):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "tool.py").write_text("import sys\nprint(__name__, sys.argv[1:])\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path)] + sys.path[1:])
    result = invoke(cli, "run", "-m", "mypkg.tool", "a", "--b")
    assert result.exit_code == 0, result.output
    assert result.stdout == "__main__ ['a', '--b']\n"


@pytest.mark.slow
def test_clean_program_exits_0_gets_its_argv_and_main_and_prints_as_under_python(tmp_path):
    """The one end-to-end subprocess test: the program's stdout is byte-identical to python's."""
    path = tmp_path / "prog.py"
    path.write_text(CLEAN)
    exe = os.path.join(os.path.dirname(sys.executable), "graphlint")
    plain = subprocess.run([sys.executable, str(path), "--flag", "value"], capture_output=True, text=True, cwd=tmp_path)
    linted = subprocess.run([exe, "run", str(path), "--flag", "value"], capture_output=True, text=True, cwd=tmp_path)
    assert plain.returncode == 0 and linted.returncode == 0, linted.stderr[-3000:]
    assert linted.stdout == plain.stdout == "6.0 ['--flag', 'value'] __main__\n"
    assert "graphlint: no findings." in linted.stderr


def test_readme_rule_table_matches_the_rules():
    """The README's table is the rules' own code, name, severity and summary; the thresholds
    table of docs/configuration.md their options and defaults."""
    from pathlib import Path

    from graphlint.registry import discover_rules

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    configuration = (root / "docs" / "configuration.md").read_text()
    for cls in discover_rules(plugins=False).values():
        row = f"| {cls.code} | `{cls.name}` | {cls.severity.value} | {cls.summary} |"
        assert row in readme, row
        for option, default in cls.options.items():
            assert f"| {cls.code} | `{option}` | {default} |" in configuration


def test_readme_setup_commands_use_the_ci_test_command():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    ci = next(line for line in (root / ".ci" / "run").read_text().splitlines() if line.startswith("python3 -m venv .venv"))
    assert ci.startswith("python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && ")
    assert f"```sh\n{ci}\n```" in (root / "README.md").read_text()


def test_missing_tensorflow_is_one_line_and_exit_2(cli, program, monkeypatch):
    path = program(CLEAN)
    monkeypatch.setitem(sys.modules, "tensorflow", None)  # `import tensorflow` now fails
    monkeypatch.setitem(sys.modules, "jax", None)  # and so does `import jax`
    monkeypatch.setitem(sys.modules, "torch", None)  # and `import torch`
    result = cli.invoke(main, ["run", str(path)])
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith("graphlint: error: TensorFlow is not installed")


@pytest.mark.slow
def test_keyboard_interrupt_prints_findings_so_far_and_exits_130(cli, program):
    path = program(GRAPH_NOT_DEFAULT + "raise KeyboardInterrupt\n")
    result = invoke(cli, "run", path)
    assert result.exit_code == 130
    assert "KeyboardInterrupt" in result.stderr and "GL103" in result.stderr


def test_graphlint_rules_shows_each_rules_frameworks():
    from click.testing import CliRunner

    from graphlint.cli import main

    result = CliRunner().invoke(main, ["rules", "--format", "json"])
    frameworks = {r["code"]: r["frameworks"] for r in json.loads(result.output)}
    assert frameworks["GL501"] == frameworks["GL502"] == ["tensorflow", "jax", "torch"]
    assert frameworks["GL505"] == ["keras", "tf-keras"]
    assert frameworks["GL101"] == ["tensorflow-v1"] and frameworks["GL001"] == []
    text = CliRunner().invoke(main, ["rules"]).output
    assert any(line.startswith("GL501") and " tensorflow+jax+torch " in line for line in text.splitlines())
