"""Configuration as ruff users expect it: the command line over the files, the closest file
for each checked file (hierarchical, `extend`), graphlint.toml, files named on the command
line, boolean environment variables read one way, the cache beside the project root."""

from __future__ import annotations

import json
import os
import textwrap

import pytest
from click.testing import CliRunner

from graphlint.cli import main
from graphlint.static.cache import FORMAT
from harness import CHECK_BAD

BAD = CHECK_BAD


def tree(root, files: dict) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def codes(*args, cwd=None, env=None) -> dict[str, set[str]]:
    """``path -> codes`` that ``graphlint check ARGS`` reports (exit 0 or 1)."""
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", *map(str, args)], env=env)
    assert result.exit_code in (0, 1), result.output
    out: dict[str, set[str]] = {}
    for f in json.loads(result.stdout)["findings"]:
        out.setdefault(f["path"].replace(os.sep, "/"), set()).add(f["code"])
    return out


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tree(tmp_path, {"a.py": BAD, "cached.py": BAD.replace("with tf.Graph():", "with tf.Graph().as_default():")})
    return tmp_path


def config(root, text: str, name: str = "pyproject.toml") -> None:
    (root / name).write_text(textwrap.dedent(text))


# -- the command line over the configuration (ruff's resolution order) ---------------------
def test_select_on_the_command_line_overrides_the_files_ignore(project):
    config(project, '[tool.graphlint]\nignore = ["GL103"]\n')
    assert codes("a.py") == {"a.py": {"GL301"}}
    assert codes("--select", "GL103", "a.py") == {"a.py": {"GL103"}}


def test_extend_select_on_the_command_line_overrides_the_files_ignore(project):
    config(project, '[tool.graphlint]\nignore = ["GL1"]\n')
    assert codes("--extend-select", "GL103", "a.py") == {"a.py": {"GL103", "GL301"}}


def test_select_and_ignore_of_one_code_on_one_command_line_is_no_error_ignore_wins(project):
    assert codes("--select", "GL1", "--ignore", "GL1", "a.py") == {}
    assert codes("--select", "GL1,GL3", "--ignore", "GL1", "a.py") == {"a.py": {"GL301"}}


def test_the_more_specific_code_wins_within_one_layer(project):
    config(project, '[tool.graphlint]\nselect = ["GL"]\nignore = ["GL1"]\nextend-select = ["GL103"]\n')
    assert codes("a.py") == {"a.py": {"GL103", "GL301"}}


@pytest.mark.parametrize("where", ["file", "command line"])
def test_extend_ignore_is_ignore(project, where):
    if where == "file":
        config(project, '[tool.graphlint]\nextend-ignore = ["GL301"]\n')
        assert codes("a.py") == {"a.py": {"GL103"}}
    else:
        assert codes("--extend-ignore", "GL301", "a.py") == {"a.py": {"GL103"}}


# -- which file applies ---------------------------------------------------------------------
def test_checking_a_project_from_elsewhere_uses_its_configuration_and_cache(tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    tree(proj, {"src/a.py": BAD, "pyproject.toml": '[tool.graphlint]\nignore = ["GL103"]\n'})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("GRAPHLINT_CACHE_DIR", raising=False)
    result = CliRunner().invoke(main, ["check", "--output-format", "json", str(proj / "src")])
    assert {f["code"] for f in json.loads(result.stdout)["findings"]} == {"GL301"}
    assert (proj / ".graphlint_cache").is_dir()  # (a result with a fix is never cached)
    assert not (elsewhere / ".graphlint_cache").exists()


def test_the_closest_configuration_applies_to_each_file_without_merging(project):
    config(project, '[tool.graphlint]\nignore = ["GL301"]\n')
    tree(project, {"sub/b.py": BAD, "sub/pyproject.toml": '[tool.graphlint]\nignore = ["GL103"]\n',
                   "plain/c.py": BAD, "plain/pyproject.toml": "[project]\nname = 'c'\n"})
    assert codes(".") == {"a.py": {"GL103"}, "sub/b.py": {"GL301"}, "plain/c.py": {"GL103"}}


def test_extend_inherits_the_parents_settings_and_adds_its_own(project):
    config(project, '[tool.graphlint]\nignore = ["GL301"]\n[tool.graphlint.rules.GL301]\nmax-per-site = 2\n')
    tree(project, {"sub/b.py": BAD,
                   "sub/pyproject.toml": '[tool.graphlint]\nextend = "../pyproject.toml"\nextend-ignore = ["GL103"]\n'})
    assert codes("sub") == {}
    tree(project, {"sub/pyproject.toml": '[tool.graphlint]\nextend = "../pyproject.toml"\nextend-select = ["GL301"]\n'})
    assert codes("sub") == {"sub/b.py": {"GL103", "GL301"}}


def test_an_extend_cycle_is_a_configuration_error(project):
    config(project, '[tool.graphlint]\nextend = "pyproject.toml"\n')
    result = CliRunner().invoke(main, ["check", "a.py"])
    assert result.exit_code == 2 and "extend" in result.output and len(result.output.splitlines()) == 1


def test_graphlint_toml_holds_settings_at_its_top_level_and_wins_in_its_folder(project):
    config(project, '[tool.graphlint]\nignore = ["GL301"]\n')
    config(project, 'ignore = ["GL103"]\n', name="graphlint.toml")
    assert codes("a.py") == {"a.py": {"GL301"}}
    config(project, 'ignore = ["GL"]\n', name=".graphlint.toml")
    assert codes("a.py") == {}


def test_a_config_file_on_the_command_line_applies_to_every_file_relative_to_the_current_folder(project):
    tree(project, {"sub/b.py": BAD, "sub/pyproject.toml": '[tool.graphlint]\nignore = ["GL103"]\n',
                   "conf/graphlint.toml": 'exclude = ["sub/"]\nignore = ["GL301"]\n'})
    assert codes("--config", "conf/graphlint.toml", ".") == {"a.py": {"GL103"}}


# -- files named on the command line; exclude ----------------------------------------------
def test_a_named_file_is_checked_even_when_excluded_unless_force_exclude(project):
    config(project, '[tool.graphlint]\nexclude = ["gen/"]\nextend-exclude = ["*_pb2.py"]\n')
    tree(project, {"gen/b.py": BAD, "c_pb2.py": BAD})
    assert set(codes(".")) == {"a.py", "cached.py"}
    assert set(codes("gen/b.py", "c_pb2.py")) == {"gen/b.py", "c_pb2.py"}
    assert set(codes("--force-exclude", "gen/b.py", "c_pb2.py", "a.py")) == {"a.py"}
    config(project, '[tool.graphlint]\nexclude = ["gen/"]\nextend-exclude = ["*_pb2.py"]\nforce-exclude = true\n')
    assert set(codes("gen/b.py", "c_pb2.py", "a.py")) == {"a.py"}


def stdin_run(*args):
    """``graphlint check --no-cache ARGS`` with BAD on stdin: (exit code, stdout bytes, stderr)."""
    result = CliRunner().invoke(main, ["check", "--no-cache", *map(str, args)], input=BAD.encode())
    return result.exit_code, result.stdout_bytes, result.stderr


def test_force_exclude_skips_an_excluded_stdin_filename_and_fix_gives_it_back(project):
    """As ruff: with --force-exclude, stdin whose --stdin-filename is excluded is not checked,
    and --fix writes it back unchanged; without it, or for a name not excluded, it is checked."""
    config(project, '[tool.graphlint]\nexclude = ["gen/"]\nextend-exclude = ["*_pb2.py"]\n')
    for name in ("gen/b.py", "c_pb2.py"):
        code, out, _ = stdin_run("--force-exclude", "--output-format", "json", "--stdin-filename", name, "-")
        assert code == 0 and json.loads(out)["findings"] == [], out
        code, out, err = stdin_run("--force-exclude", "--fix", "--stdin-filename", name)
        assert (code, out) == (0, BAD.encode()), err
        assert stdin_run("--force-exclude", "--diff", "--stdin-filename", name)[:2] == (0, b"")
        code, out, _ = stdin_run("--output-format", "json", "--stdin-filename", name)  # no --force-exclude
        assert code == 1 and {f["code"] for f in json.loads(out)["findings"]} == {"GL103", "GL301"}
    code, out, _ = stdin_run("--force-exclude", "--fix", "--stdin-filename", "a.py")  # not excluded: fixed
    assert code == 1 and out == BAD.replace("with tf.Graph():", "with tf.Graph().as_default():").encode()
    config(project, '[tool.graphlint]\nexclude = ["gen/"]\nforce-exclude = true\n')
    assert stdin_run("--fix", "--stdin-filename", "gen/b.py")[:2] == (0, BAD.encode())


def test_extend_exclude_adds_to_the_extended_files_exclude_and_exclude_replaces_it(project):
    config(project, '[tool.graphlint]\nexclude = ["gen/"]\n')
    tree(project, {"sub/gen/b.py": BAD, "sub/tmp/c.py": BAD,
                   "sub/pyproject.toml": '[tool.graphlint]\nextend = "../pyproject.toml"\nextend-exclude = ["tmp/"]\n'})
    assert set(codes("sub")) == set()
    tree(project, {"sub/pyproject.toml": '[tool.graphlint]\nextend = "../pyproject.toml"\nexclude = ["tmp/"]\n'})
    assert set(codes("sub")) == {"sub/gen/b.py"}


# -- boolean environment variables, one way ------------------------------------------------
@pytest.mark.parametrize("value, disabled", [("1", True), ("yes", True), ("On", True), ("False", False),
                                             ("off", False), ("NO", False), ("0", False), ("", False)])
def test_graphlint_disable_plugins_reads_booleans_like_graphlint_no_cache(monkeypatch, value, disabled):
    from graphlint.registry import plugins_disabled

    monkeypatch.setenv("GRAPHLINT_DISABLE_PLUGINS", value)
    assert plugins_disabled() is disabled


@pytest.mark.parametrize("name", ["GRAPHLINT_DISABLE_PLUGINS", "GRAPHLINT_NO_CACHE"])
def test_a_boolean_variable_that_is_not_a_boolean_is_one_line_and_exit_2(project, name):
    result = CliRunner().invoke(main, ["check", "a.py"], env={name: "maybe"})
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert f"{name}='maybe' is not a boolean" in result.output


@pytest.mark.parametrize("value, cached", [("0", True), ("false", True), ("yes", False), ("TRUE", False)])
def test_graphlint_no_cache(project, monkeypatch, value, cached):
    monkeypatch.delenv("GRAPHLINT_CACHE_DIR", raising=False)
    CliRunner().invoke(main, ["check", "cached.py"], env={"GRAPHLINT_NO_CACHE": value})
    assert (project / ".graphlint_cache").exists() is cached


# -- the cache's folder, and `graphlint clean` ---------------------------------------------
@pytest.mark.parametrize("how", ["option", "setting"])
def test_the_cache_folder_from_the_option_or_the_setting(project, monkeypatch, how):
    monkeypatch.delenv("GRAPHLINT_CACHE_DIR", raising=False)
    args = ["check", "cached.py"]
    if how == "option":
        args[1:1] = ["--cache-dir", "other-cache"]
    else:
        config(project, '[tool.graphlint]\ncache-dir = "other-cache"\n')
    CliRunner().invoke(main, args)
    assert list((project / "other-cache").rglob("*.json"))
    assert not (project / ".graphlint_cache").exists()


def test_clean_removes_only_what_graphlint_wrote(project, monkeypatch):
    monkeypatch.delenv("GRAPHLINT_CACHE_DIR", raising=False)
    CliRunner().invoke(main, ["check", "cached.py"])
    cache = project / ".graphlint_cache"
    folder = cache / str(FORMAT)
    (folder / "notes.json").write_text('{"mine": true}')
    (folder / ("0" * 24 + ".json")).write_text('{"format": %d, "other": []}' % FORMAT)  # not its mark
    result = CliRunner().invoke(main, ["clean"])
    assert result.exit_code == 0 and "removed 2 cache files" in result.output  # its entry, its .gitignore
    assert sorted(p.name for p in folder.iterdir()) == ["0" * 24 + ".json", "notes.json"]
    assert (project / "cached.py").exists()


def test_an_unknown_code_is_an_error_even_with_nothing_to_check(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    config(tmp_path, '[tool.graphlint]\nignore = ["GL999"]\n')
    result = CliRunner().invoke(main, ["check", "empty"])
    assert result.exit_code == 2 and "unknown rule code or prefix 'GL999'" in result.output
