"""Hostile input (issue 10): every bad input is one line and exit 2, never a traceback;
`check` never runs or damages what it reads; findings are never lost. (`graphlint run` as
`python`, and its reports however the program ends: tests/runtime/test_run_*.py.)

Each test is one case of the issue. They run graphlint as a user would (a subprocess of the
console script) where the case is about the process: its streams, signals, exit status.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GRAPHLINT = os.path.join(os.path.dirname(sys.executable), "graphlint")
FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"
FIXED = "import tensorflow as tf\nwith tf.Graph().as_default():\n    pass\n"


def gl(*args, cwd=None, timeout=120, prefix=(), env=None, **kw):
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
    """Exit 2, stderr is exactly one ``graphlint: error:`` line containing each fragment."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("graphlint: error: "), proc.stderr[-2000:]
    for fragment in fragments:
        assert fragment in lines[0]


def unprivileged():
    """A command prefix under which file permissions apply (root ignores them)."""
    if os.geteuid() != 0:
        return ()
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: permissions cannot be tested")
    return ("setpriv", "--bounding-set", "-dac_override,-dac_read_search")


# -- crashes and hangs ---------------------------------------------------------------------
@pytest.mark.parametrize("value", ["3", '"graphlint"', "[1, 2]"])
@pytest.mark.parametrize("how", ["pyproject", "--config"])
def test_tool_that_is_not_a_table_is_one_line_and_exit_2(tmp_path, value, how):
    (tmp_path / "a.py").write_text("x = 1\n")
    name = "pyproject.toml" if how == "pyproject" else "graphlint.toml"
    (tmp_path / name).write_text(f"tool = {value}\n")
    args = ["check", "a.py"] + (["--config", name] if how == "--config" else [])
    one_line_error(gl(*args, cwd=tmp_path), "tool")


@pytest.mark.parametrize("pattern", ["!", "a\\\\", "[z-a]"])
def test_invalid_exclude_pattern_is_a_config_error(tmp_path, pattern):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "pyproject.toml").write_text(f'[tool.graphlint]\nexclude = ["{pattern}"]\n')
    one_line_error(gl("check", ".", cwd=tmp_path), "exclude")


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


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_special_file_as_config_is_one_line(tmp_path, kind):
    (tmp_path / "a.py").write_text("x = 1\n")
    if kind == "fifo":
        os.mkfifo(tmp_path / "g.toml")
        config = "g.toml"
    else:
        config = "/dev/zero"
    one_line_error(gl("check", "--config", config, "a.py", cwd=tmp_path, timeout=60), "config")


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


# -- wrong answers -------------------------------------------------------------------------
PREFILTER = {
    "bom": "\ufeffimport tensorflow as tf\nwith tf.Graph():\n    pass\n",
    "crlf": "import tensorflow as tf\r\nwith tf.Graph():\r\n    pass\r\n",
    "cr": "import tensorflow as tf\rwith tf.Graph():\r    pass\r",
    "semicolon": "x = 1; import tensorflow as tf\nwith tf.Graph():\n    pass\n",
    "formfeed": "\fimport tensorflow as tf\nwith tf.Graph():\n    pass\n",
    "if": "if True: import tensorflow as tf\nwith tf.Graph():\n    pass\n",
    "continuation": "import \\\n    tensorflow as tf\nwith tf.Graph():\n    pass\n",
    "from-continuation": "from \\\n tensorflow import Graph\nwith Graph():\n    pass\n",
}


@pytest.mark.parametrize("case", sorted(PREFILTER))
def test_prefilter_is_never_stricter_than_the_parser(tmp_path, case):
    path = tmp_path / "a.py"
    path.write_bytes(PREFILTER[case].encode("utf-8"))
    proc = gl("check", "--format", "json", "a.py", cwd=tmp_path)
    codes = [f["code"] for f in json.loads(proc.stdout)["findings"]]
    assert codes == ["GL103"], proc.stderr


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
    proc = gl("check", *args, cwd=cwd)
    assert proc.returncode == 0 and "GL103" not in proc.stdout, proc.stdout
    gl("check", "--fix", *args, cwd=cwd)
    assert (tmp_path / "ign" / "x.py").read_text() == FIXABLE


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


def test_pre_commit_hook_passes_files_after_double_dash(tmp_path):
    import yaml

    hooks = yaml.safe_load((Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text())
    entry = hooks[0]["entry"].split()
    assert entry[0] == "graphlint"
    (tmp_path / "-x.py").write_text(FIXABLE)
    proc = subprocess.run([GRAPHLINT, *entry[1:], *hooks[0].get("args", []), "-x.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "-x.py:2:6: GL103" in proc.stdout, proc.stderr


def test_python_m_graphlint_cli_does_not_import_rules_from_the_checked_folder(tmp_path):
    dist = tmp_path / "evil-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[graphlint]\nGL900 = evil_rule:Rule\n")
    (tmp_path / "evil_rule.py").write_text("open('PWNED', 'w').close()\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = subprocess.run([sys.executable, "-m", "graphlint.cli", "check", "a.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "PWNED").exists()


# -- pytest plugin -------------------------------------------------------------------------
BAD_MARKERS = """\
import pytest


@pytest.mark.graphlint(rules={"GL302": 5})
def test_rules_not_a_table():
    pass


@pytest.mark.graphlint(rules=5)
def test_rules_not_a_mapping():
    pass


@pytest.mark.graphlint(fail_on=["error"])
def test_fail_on_a_list():
    pass


def test_fine():
    pass
"""


def test_bad_marker_arguments_fail_their_test_with_one_line(pytester):
    pytester.makepyfile(test_markers=BAD_MARKERS)
    result = pytester.runpytest_subprocess("--graphlint", "-p", "no:cacheprovider")
    text = result.stdout.str() + result.stderr.str()
    result.assert_outcomes(errors=1)  # one error collecting the module, naming each test
    assert "TypeError" not in text and "KeyError" not in text and "Traceback" not in text, text[-4000:]
    result.stdout.fnmatch_lines([
        "*test_rules_not_a_table*rules.GL302 must be a table*",
        "*test_rules_not_a_mapping*rules must be a table*",
        "*test_fail_on_a_list*fail_on must be error, warning or never*",
    ])


@pytest.mark.parametrize("target", ["missing/report.json", "adir", "/dev/full"])
def test_graphlint_report_that_cannot_be_written_is_a_usage_error_at_start(pytester, target):
    if target == "/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    (pytester.path / "adir").mkdir()
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess("--graphlint", f"--graphlint-report={target}", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-3000:]
    assert f"graphlint: cannot write --graphlint-report {target}" in result.stderr.str()
    assert "passed" not in result.stdout.str()  # stopped before running anything


def test_graphlint_fixture_without_tensorflow_is_one_line(pytester):
    pytester.makeconftest(
        "import sys\nsys.modules['tensorflow'] = None\nsys.modules['jax'] = None\nsys.modules['torch'] = None\n"
    )
    pytester.makepyfile(test_fx="def test_uses_it(graphlint):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    text = result.stdout.str()
    assert "TensorFlow is not installed" in text
    assert "Traceback" not in text and "instrument.py" not in text and "testing.py" not in text, text[-4000:]


# -- GL501: values told apart whole, not by their shortened text ------------------------------
@pytest.mark.parametrize("where", ["end", "middle"])
def test_gl501_tells_long_strings_apart_beyond_their_shortened_text(tmp_path, where):
    value = '"a" * 50 + str(i)' if where == "end" else '"a" * 30 + str(i) + "b" * 30'
    (tmp_path / "x.py").write_text(
        "import tensorflow as tf\n\n\n@tf.function\ndef tag(x, s):\n    return x + len(s)\n\n\n"
        f"for i in range(8):\n    tag(tf.constant(1.0), {value})\n"
    )
    proc = gl("run", "--format", "json", "x.py", cwd=tmp_path, env={"TF_CPP_MIN_LOG_LEVEL": "3"})
    (finding,) = [f for f in json.loads(proc.stderr[proc.stderr.index("{"):])["findings"] if f["code"] == "GL501"]
    assert "look the same" not in finding["message"]
    assert "changed between traces: `s` (str)" in finding["message"], finding["message"]
    if where == "end":
        assert "a0' → '" in finding["message"] and "a1'" in finding["message"]
    else:
        assert "(8 different values)" in finding["message"]
    assert "Pass `s` as a tensor" in finding["fix"]


# -- every threshold option: at its boundary and just below ------------------------------------
TF1 = "import tensorflow as tf\ntf1 = tf.compat.v1\ntf1.disable_eager_execution()\n"
TF2 = "import numpy as np\nimport tensorflow as tf\n"
#: (code, option, value, other options, program repeating its pattern N times, N where it
#: first fires). "more than K" fires at N = K + 1; GL102's "at least K steps" counts the
#: steps after the first run, so its loop of K + 1 iterations makes K steps.
THRESHOLDS = [
    # a model rebuilt in a fresh graph per pass and fed: a session per pass that could be kept
    # (a fresh graph holding only its own values is that graph's one session: not counted)
    ("GL301", "max-per-site", 3, {"max-per-graph": 100},
     TF1 + "for i in range(N):\n    g = tf.Graph()\n    with g.as_default():\n        x = tf1.placeholder(tf.float32)\n"
     "        c = x + 1.0\n    with tf1.Session(graph=g) as s:\n        s.run(c, {x: float(i)})\n"),
    ("GL301", "max-per-graph", 3, {"max-per-site": 100},
     TF1 + "g = tf.Graph()\nwith g.as_default():\n    c = tf.constant(1.0)\nfor i in range(N):\n"
     "    with tf1.Session(graph=g) as s:\n        s.run(c)\n"),
    ("GL302", "max-combinations", 3, {},
     TF1 + "g = tf.Graph()\nwith g.as_default():\n    values = [tf.constant(float(i)) for i in range(N)]\n"
     "with tf1.Session(graph=g) as s:\n    for v in values:\n        s.run(v)\n"),
    ("GL303", "max-open-per-graph", 2, {},
     TF1 + "g = tf.Graph()\nwith g.as_default():\n    c = tf.constant(1.0)\nkept = []\nfor i in range(N):\n"
     "    kept.append(tf1.Session(graph=g))\n"),
    ("GL102", "min-repeats", 3, {},
     TF1 + "x = tf1.placeholder(tf.float32, [])\nwith tf1.Session() as s:\n    for i in range(N):\n"
     "        s.run(x + 1.0, {x: 1.0})\n"),
    ("GL501", "max-traces", 3, {},
     TF2 + "@tf.function\ndef f(x):\n    return x * 2\nfor i in range(1, N + 1):\n    f(tf.zeros([i]))\n"),
    ("GL502", "max-per-site", 2, {}, TF2 + "for i in range(N):\n    tf.function(lambda x: x * 2)(tf.constant(1.0))\n"),
    ("GL503", "max-per-site", 2, {},
     TF2 + "for i in range(N):\n    m = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])\n"),
    ("GL504", "max-calls", 3, {},
     TF2 + "model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])\nfor i in range(N):\n"
     "    model.predict(np.zeros((1, 2), np.float32), verbose=0)\n"),
]


def _fires(tmp_path, code, option, value, others, program, n) -> bool:
    (tmp_path / "p.py").write_text(program.replace("range(N)", f"range({n})").replace("N + 1", f"{n} + 1"))
    options = "\n".join(f"{k} = {v}" for k, v in {option: value, **others}.items())
    (tmp_path / "g.toml").write_text(f"[graphlint.rules.{code}]\n{options}\n")
    proc = gl("run", "--format", "json", "--config", "g.toml", "p.py", cwd=tmp_path, env={"TF_CPP_MIN_LOG_LEVEL": "3"})
    doc = json.loads(proc.stderr[proc.stderr.index('{\n  "version"'):])
    return code in [f["code"] for f in doc["findings"]]


@pytest.mark.parametrize("at", ["boundary", "just-below"])
@pytest.mark.parametrize("code, option, value, others, program", THRESHOLDS, ids=[f"{t[0]}-{t[1]}" for t in THRESHOLDS])
def test_threshold_option_fires_at_its_boundary_and_not_just_below(tmp_path, code, option, value, others, program, at):
    n = value + 1 if at == "boundary" else value
    assert _fires(tmp_path, code, option, value, others, program, n) is (at == "boundary")


@pytest.mark.parametrize("code, option", sorted({(t[0], t[1]) for t in THRESHOLDS}))
def test_readme_and_rule_docs_say_the_same_about_each_threshold(code, option):
    """``graphlint rule CODE`` (the docstring) and README's options table use one wording:
    "at least" for min-* options, "more ... than" for max-* options, as the code counts."""
    from graphlint.registry import discover_rules

    doc = " ".join(discover_rules()[code].__doc__.split())
    readme = (Path(__file__).parent.parent / "docs" / "configuration.md").read_text()  # the README points there
    (row,) = [line for line in readme.splitlines() if line.startswith(f"| {code} | `{option}` |")]
    if option.startswith("min-"):
        assert f"at least `{option}`" in doc and "at least this" in row, (doc, row)
        assert f"more than `{option}`" not in doc
    else:
        assert f"more than `{option}`" in doc and "more" in row and "than this" in row, (doc, row)


# -- the program's own graphlint -------------------------------------------------------------
def test_nested_instrument_in_process_sees_only_its_block():
    pytest.importorskip("tensorflow")
    import tensorflow as tf

    import graphlint

    with graphlint.instrument() as outer:
        with tf.Graph():
            pass
        with graphlint.instrument() as inner:
            with tf.Graph():
                pass
        inner_lines = [f.location.line for f in inner.finish()]
    outer_lines = sorted(f.location.line for f in outer.finish() if f.code == "GL103")
    assert len(inner_lines) == 1 and len(outer_lines) == 2 and inner_lines[0] == outer_lines[1]
