"""`# noqa` and `# graphlint: noqa`, read the same way by both engines (graphlint.suppression)."""

from __future__ import annotations

import pytest

from graphlint.config import Config
from graphlint.findings import Finding, Location, Severity
from graphlint.suppression import line_suppresses, only_selected, without_noqa


def finding(code="GL101", line=2, path="m.py"):
    return Finding(code, "x", Severity.WARNING, "m", Location(path, line))


@pytest.mark.parametrize(
    "line, code, silenced",
    [
        ("x = f()  # noqa", "GL101", True),
        ("x = f()  # noqa: GL101", "GL101", True),
        ("x = f()  # NoQA: gl1", "GL101", True),
        ("x = f()  # noqa: GL102, GL3", "GL301", True),
        ("x = f()  # noqa: GL102", "GL101", False),
        ("x = f()  # no qa", "GL101", False),
        ("x = 'noqa'", "GL101", False),
    ],
)
def test_a_noqa_comment_covers_the_codes_it_names(line, code, silenced):
    assert line_suppresses(line, code) is silenced


def test_noqa_applies_to_the_findings_own_line_only():
    text = "a = 1\nb = f()  # noqa: GL101\nc = f()\n"
    kept = without_noqa([finding(line=2), finding(line=3), finding("GL102", line=2)], text)
    assert [(f.code, f.location.line) for f in kept] == [("GL101", 3), ("GL102", 2)]


@pytest.mark.parametrize("comment, kept", [("# graphlint: noqa", []), ("# graphlint: noqa: GL1", ["GL301"])])
def test_a_file_level_noqa_silences_the_whole_file(comment, kept):
    text = f"{comment}\na = 1\nb = 2\n"
    assert [f.code for f in without_noqa([finding("GL101"), finding("GL301", line=3)], text)] == kept


def test_selection_and_per_file_ignores(tmp_path):
    config = Config(select=["GL1", "GL3"], ignore=["GL102"], per_file_ignores={"tests/*": ["GL3"]}, root=str(tmp_path))
    found = [finding("GL101"), finding("GL102"), finding("GL201"), finding("GL301", path=str(tmp_path / "tests/t.py"))]
    assert [f.code for f in only_selected(config, found)] == ["GL101"]


# -- invalid directives are warned about and silence nothing; GL002 unused-noqa --------------
@pytest.mark.parametrize("comment", ["# noqa: session-churn", "# noqa:XY", "# noqa: GL103GL301", "# noqa:", "# noqa: GL101, GL1x"])
def test_an_invalid_noqa_silences_nothing(comment):
    assert not line_suppresses(f"x = f()  {comment}", "GL103")
    assert not line_suppresses(f"x = f()  {comment}", "GL101")


@pytest.mark.parametrize("comment, code, silenced", [
    ("# noqa: GL103 the graph is entered later", "GL103", True),  # a reason after the codes
    ("# noqa GL103 is fine here", "GL301", True),  # no colon: every code, as ruff reads it
    ("# noqa:GL103,GL301", "GL301", True),
    ("# noqa-ish", "GL103", False),
])
def test_valid_noqa_forms(comment, code, silenced):
    assert line_suppresses(f"x = f()  {comment}", code) is silenced


def test_an_invalid_noqa_is_warned_about_with_its_place_and_the_finding_is_kept(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from graphlint.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("import tensorflow as tf\nwith tf.Graph():  # noqa: graph-not-default\n    pass\n"
                                   "# graphlint: noqa: everything\n")
    result = CliRunner().invoke(main, ["check", "--no-cache", "a.py"])
    assert result.exit_code == 1 and "a.py:2:6: GL103" in result.stdout
    assert result.stderr.splitlines() == [
        "graphlint: warning: Invalid `# noqa` directive at a.py:2:19: expected `# noqa` or `# noqa: CODE[, CODE...]` "
        "with rule codes (e.g. `# noqa: GL301`); it silences nothing",
        "graphlint: warning: Invalid `# noqa` directive at a.py:4:1: expected `# noqa` or `# noqa: CODE[, CODE...]` "
        "with rule codes (e.g. `# noqa: GL301`); it silences nothing",
    ]
    assert CliRunner().invoke(main, ["check", "--no-cache", "-q", "a.py"]).stderr == ""


def test_unused_noqa_reports_directives_and_codes_that_silence_nothing():
    text = "a = f()  # noqa: GL101, GL301\nb = g()  # noqa\nc = h()  # noqa: GL3\n"
    kept = without_noqa([finding("GL101", line=1), finding("GL301", line=3)], text, "m.py", report_unused=True)
    assert [(f.code, f.location.line, f.location.column, f.message) for f in kept] == [
        ("GL002", 1, 10, "unused `noqa` directive (unused: `GL301`)"),
        ("GL002", 2, 10, "unused `noqa` directive (it silences nothing)"),
    ]


def test_unused_noqa_is_off_by_default_and_on_when_selected(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from graphlint.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "plain.py").write_text("x = 1  # noqa: GL101\n")  # no framework: no rule could report
    assert CliRunner().invoke(main, ["check", "--no-cache", "plain.py"]).exit_code == 0
    result = CliRunner().invoke(main, ["check", "--no-cache", "--extend-select", "GL002", "plain.py"])
    assert result.exit_code == 1 and "plain.py:1:8: GL002 unused `noqa` directive (unused: `GL101`)" in result.stdout
    assert Config().is_selected("GL002") is False and Config(select=[""]).is_selected("GL002") is True
