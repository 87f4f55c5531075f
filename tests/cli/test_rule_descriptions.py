"""What the reporters know of the rules, :func:`graphlint.registry.describe`, is made as it is
read: every description, in the rules' order, is the one the rule class gives; the text and
JSON reports read none (a description parses its rule's docstring), SARIF reads them all."""

from __future__ import annotations

import json

import pytest

from graphlint.findings import Finding, Location, Severity
from graphlint.registry import RuleDescription, describe, discover_rules
from graphlint.report import render


@pytest.fixture(scope="module")
def rules():
    return discover_rules(plugins=False)


def finding() -> Finding:
    return Finding("GL101", "graph-rebuilt", Severity.WARNING, "built again", Location("a.py", 3, 1))


def test_the_descriptions_are_the_rules_own_in_their_order(rules):
    described = describe(rules)
    assert list(described) == list(rules) and len(described) == len(rules)
    assert dict(described) == {code: RuleDescription.of(cls) for code, cls in rules.items()}
    assert described["GL101"] is described["GL101"]  # made once
    assert "GL999" not in described and describe(None) == {}
    with pytest.raises(KeyError):
        described["GL999"]


@pytest.mark.parametrize("fmt", ["full", "concise", "json", "github"])
def test_the_text_and_json_reports_read_no_description(rules, fmt, monkeypatch):
    def unread(rule):
        raise AssertionError(f"{rule.code} described")

    monkeypatch.setattr(RuleDescription, "of", unread)
    assert "GL101" in render(fmt, [finding()], describe(rules), statistics=True)


def test_sarif_reads_every_description(rules):
    doc = json.loads(render("sarif", [finding()], describe(rules)))
    assert [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]] == sorted(rules)


def test_a_description_is_plain_data():
    described = RuleDescription("XY100", "xy", Severity.ERROR)
    assert (described.docs, described.options, described.engines) == ({}, {}, ("runtime",))
    assert described == RuleDescription("XY100", "xy", Severity.ERROR)
    with pytest.raises(AttributeError):
        described.code = "XY101"  # type: ignore[misc]
