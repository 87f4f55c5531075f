"""A rule's static form that can only find something in a module naming one of its words
(``Rule.static_words``, GL506: ``torch``) is neither imported nor run for any other module,
and that changes no finding: on every sample and precision case without the words, each such
built-in form finds nothing."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from graphlint.config import Config
from graphlint.findings import Severity
from graphlint.registry import discover_rules, malformed
from graphlint.rules._base import Rule
from graphlint.static import check_file
from graphlint.static.model.module import Module
from graphlint.static.model.project import Project

ROOT = Path(__file__).resolve().parents[2]
CALLS: list[str] = []


def _check(module, options):
    CALLS.append(module.path)
    return []


class Worded(Rule):
    """Finds nothing, in modules that name `shout`."""

    code = "XW100"
    name = "worded"
    summary = "finds nothing"
    severity = Severity.WARNING
    check = staticmethod(_check)
    static_words = ("shout", "yell")


@pytest.mark.parametrize(
    "text,runs",
    # a name beyond ASCII may be the word once the parser normalises it (ｓｈｏｕｔ is shout)
    [("x = 1\n", False), ("shout = 1\n", True), ("# yell\n", True), ("ｓｈｏｕｔ = 1\n", True), ("é = 1\n", True)],
)
def test_a_form_runs_only_on_a_module_naming_one_of_its_words(tmp_path, text, runs):
    path = tmp_path / "a.py"
    path.write_text(text)
    CALLS.clear()
    check_file(str(path), [Worded], Config(root=str(tmp_path)), full=True)
    assert CALLS == ([str(path)] if runs else [])
    assert Worded.may_report_on(text) is runs and Rule.may_report_on(text)


def _sources() -> list[Path]:
    return sorted(p for folder in ("samples", "tests/static/cases") for p in (ROOT / folder).rglob("*.py"))


WORDED = [cls for cls in discover_rules(plugins=False).values() if cls.static_words]


def test_graph_break_declares_its_word():
    assert [(cls.code, cls.static_words) for cls in WORDED] == [("GL506", ("torch",))]


@pytest.mark.parametrize("rule", WORDED, ids=lambda cls: cls.code)
def test_a_declared_form_finds_nothing_where_its_words_are_not(rule):
    form = rule.static_form()
    assert form is not None
    without = 0
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        if rule.may_report_on(text):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue  # (a GL001 case)
        without += 1
        assert list(form(Module(str(path), text, tree, Project()), dict(rule.options))) == [], path
    assert without > 100


@pytest.mark.parametrize("words", ["torch", 3, ("torch", 3)])
def test_words_that_are_no_tuple_of_strings_make_the_rule_malformed(words):
    bad = type("Bad", (Worded,), {"static_words": words})
    assert malformed(bad) == f"`static_words` must be a tuple of words, not {words!r}"
    assert malformed(Worded) is None
