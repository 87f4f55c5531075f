"""Findings name the column, and where known the end, of the construct: the static engine from
the parsed tree, `graphlint run` from the interpreter's own instruction positions."""

from __future__ import annotations

import sys
import textwrap

import pytest

from harness import SAMPLES, line_of, only, run_in_process

STORY = SAMPLES / "story" / "forecast_1_rebuilt.py"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="instruction positions are Python 3.11+")
def test_graphlint_run_reports_the_column_and_end_of_the_call():
    findings, _ = run_in_process(STORY)
    for code, call in (("GL101", "tf1.placeholder("), ("GL202", "tf1.get_variable(")):
        found = only(findings, code)
        text = STORY.read_text().splitlines()[found.location.line - 1]
        assert found.location.line == line_of(STORY, f"# {code}")
        assert found.location.column == text.index(call) + 1, (code, found.location)
        assert found.location.end_line == found.location.line
        assert text[found.location.end_column - 2] == ")"  # the call's closing parenthesis


def test_position_without_a_known_origin_is_column_1():
    from graphlint.stacks import Frame, position

    assert position(Frame("x.py", 3, "f")) == (1, None, None)


def test_graphlint_check_reports_the_end_of_the_construct(tmp_path):
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.static import check_file

    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent("""\
        import tensorflow as tf
        with tf.Graph():
            pass
        """))
    rules = [cls for cls in discover_rules().values() if cls.checks_statically()]
    (found,) = check_file(str(path), rules, Config()).findings
    loc = found.location
    assert (loc.line, loc.column, loc.end_line, loc.end_column) == (2, 6, 2, 16)  # `tf.Graph()`
