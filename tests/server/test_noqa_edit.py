"""Where "disable GLxxx for this line" puts its ``# noqa`` (graphlint.server.actions), in
process: only where a comment can go, after the line's code."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from graphlint.server.actions import noqa_edit
from graphlint.server.documents import lines_of

CODEC = PositionCodec()


@pytest.mark.parametrize(
    "text, line",
    [
        ('x = f("""a\nb""")\n', 0),  # the line ends inside a string
        ("x = 1 + \\\n    2\n", 0),  # continued by a backslash
        ("x = 1  # noqa\n", 0),  # a bare noqa silences every code already
    ],
    ids=["in-a-string", "backslash", "bare-noqa"],
)
def test_no_noqa_where_a_comment_cannot_go(text, line):
    assert noqa_edit(text, lines_of(text), line, "GL301", CODEC) is None


def test_a_noqa_goes_after_the_code_of_the_last_line_of_a_string():
    text = 'x = f("""a\nb""")\n'
    edit = noqa_edit(text, lines_of(text), 1, "GL301", CODEC)
    assert (edit.range.start, edit.new_text) == (types.Position(1, 5), "  # noqa: GL301")


@pytest.mark.parametrize(
    "line, silenced",
    [
        ("x = 1", "x = 1  # noqa: GL301"),
        ("x = 1  # noqa: GL101", "x = 1  # noqa: GL101, GL301"),
        ("x = 1  # noqa: GL101 the reason  # other", "x = 1  # noqa: GL101, GL301 the reason  # other"),
        ("x = 1  # noqa: session-churn", "x = 1  # noqa: GL301 session-churn"),  # invalid: it silenced nothing
    ],
    ids=["none", "codes", "codes-and-reason", "invalid"],
)
def test_the_noqa_edit_makes_the_lines_directive_silence_the_code(line, silenced):
    from graphlint.suppression import line_suppresses

    edit = noqa_edit(line + "\n", lines_of(line + "\n"), 0, "GL301", CODEC)
    start, end = edit.range.start.character, edit.range.end.character
    assert line[:start] + edit.new_text + line[end:] == silenced
    assert line_suppresses(silenced, "GL301") and not line_suppresses(line, "GL301")
