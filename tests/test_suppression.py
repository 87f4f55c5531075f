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
