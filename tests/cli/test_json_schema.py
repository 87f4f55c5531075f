"""The JSON output is what docs/output.md says: its schema, checked on real output (fixable
findings with edits, related sites, counts, a notebook's cells, statistics)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from graphlint.cli import main

ROOT = Path(__file__).resolve().parents[2]


def documented_schema() -> dict:
    text = (ROOT / "docs" / "output.md").read_text()
    (block,) = re.findall(r"```json\n(.*?)\n```", text, re.S)
    return json.loads(block)


def test_every_field_of_real_output_is_in_the_documented_schema(tmp_path, monkeypatch):
    import jsonschema

    for folder in ("rules", "notebooks"):
        shutil.copytree(ROOT / "samples" / folder, tmp_path / folder)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--statistics", "--output-format", "json", "."])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    schema = documented_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(doc, schema)
    findings = doc["findings"]
    # the optional parts occur, so the schema is checked on them too
    assert any(f.get("edits") for f in findings) and any(f["related"] for f in findings)
    assert any("cell" in f for f in findings) and "statistics" in doc
    assert any(f["end_line"] is not None for f in findings)


def test_the_documented_table_names_every_field_of_the_schema():
    text = (ROOT / "docs" / "output.md").read_text()
    fields = documented_schema()["$defs"]["finding"]["properties"]
    for name in fields:
        assert re.search(rf"`{name}`", text), name
