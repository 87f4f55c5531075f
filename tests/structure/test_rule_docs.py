"""The rules' docs have one source, each rule's docstring: docs/rules/ is generated from it
(``docs/rules/generate.py``) and kept in step here, ``graphlint rule CODE`` prints the same
page, SARIF's rule help carries the same sections. The docstrings read as ruff's rule pages:
*What it does* in one to three sentences, exemptions in a section of their own."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphlint.cli import main
from graphlint.registry import discover_rules

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
RULES = discover_rules(plugins=False)
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")


def _pages() -> dict[str, str]:
    sys.path.insert(0, str(DOCS))
    try:
        import generate
    finally:
        sys.path.remove(str(DOCS))
    return generate.pages()


def test_docs_rules_are_generated_from_the_docstrings():
    """Run ``.venv/bin/python docs/rules/generate.py`` after editing a rule's docstring."""
    pages = _pages()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    assert set(on_disk) == set(pages) == {f"{code}.md" for code in RULES} | {"README.md"}
    stale = [name for name, text in pages.items() if on_disk[name] != text]
    assert stale == [], "stale: run docs/rules/generate.py"


@pytest.mark.parametrize("code", RULES)
def test_graphlint_rule_prints_the_page(code):
    result = CliRunner().invoke(main, ["rule", code])
    assert result.exit_code == 0
    assert result.stdout == (DOCS / f"{code}.md").read_text(encoding="utf-8")


def test_sarif_rule_help_has_every_section_of_the_docstring(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("import tensorflow as tf\n\nwith tf.Graph():\n    pass\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--format", "sarif", "a.py"])
    descriptors = {d["id"]: d for d in json.loads(result.stdout)["runs"][0]["tool"]["driver"]["rules"]}
    for code, cls in RULES.items():
        help_md = descriptors[code]["help"]["markdown"]
        for title, body in cls.docs().items():
            if title:
                assert f"## {title}\n{body}" in help_md, (code, title)


@pytest.mark.parametrize("code", RULES)
def test_what_it_does_is_one_to_three_sentences_and_exemptions_have_their_own_section(code):
    docs = RULES[code].docs()
    for section in SECTIONS:
        assert docs.get(section), f"{code} lacks '## {section}'"
    what = docs["What it does"]
    sentences = re.findall(r"[.!?](?:\s|$)", what.replace("e.g.", "eg"))
    assert 1 <= len(sentences) <= 3 and len(what.split()) <= 80, what
    assert set(docs) <= {"", *SECTIONS, "Known exemptions"}
    assert "not reported" not in what.lower() and "stay silent" not in what.lower(), "exemptions: ## Known exemptions"
