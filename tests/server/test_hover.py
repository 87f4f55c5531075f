"""Hover over LSP: the rule's documentation, as ``graphlint rule CODE`` prints it, over a
diagnostic or over a code in a ``# noqa`` comment."""

from __future__ import annotations

import pytest
from lsprotocol import types

from harness import cli
from lsp_helpers import client_fixture, diagnostics_of, open_file, sample_fixture

pytestmark = pytest.mark.asyncio(loop_scope="module")
client = client_fixture()
sample = sample_fixture()


def rule_docs(code: str) -> str:
    """What ``graphlint rule CODE`` prints (in this process: harness's ``cli``)."""
    result = cli("rule", code)
    assert result.exit_code == 0, result.output
    return result.stdout


async def hover_at(client, uri: str, line: int, character: int) -> types.Hover | None:
    params = types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, character))
    return await client.text_document_hover_async(params)


async def test_hover_on_a_diagnostic_shows_its_rules_documentation(client, sample):
    path = sample("rules/gl103_bad.py")
    uri = open_file(client, path)
    (found,) = await diagnostics_of(client, uri)
    shown = await hover_at(client, uri, found.range.start.line, found.range.start.character + 2)
    assert shown.contents.kind == types.MarkupKind.Markdown
    assert shown.contents.value == rule_docs("GL103")
    assert shown.range == found.range


async def test_hover_on_a_code_in_a_noqa_comment_shows_that_rules_documentation(client, tmp_path):
    path = tmp_path / "quiet.py"
    path.write_text("import tensorflow as tf\n\nfor i in range(3):\n    s = tf.compat.v1.Session()  # noqa: GL103, GL301\n")
    uri = open_file(client, path)
    assert await diagnostics_of(client, uri) == []
    line = path.read_text().splitlines()[3]
    shown = await hover_at(client, uri, 3, line.index("GL301") + 1)
    assert shown.contents.value == rule_docs("GL301")
    assert (shown.range.start.character, shown.range.end.character) == (line.index("GL301"), line.index("GL301") + 5)
    both = await hover_at(client, uri, 3, line.index("noqa"))
    assert both.contents.value == rule_docs("GL103") + "\n---\n" + rule_docs("GL301")


async def test_hover_on_a_prefix_lists_its_rules(client, tmp_path):
    path = tmp_path / "prefix.py"
    path.write_text("x = 1  # noqa: GL3\n")
    uri = open_file(client, path)
    await diagnostics_of(client, uri)
    shown = await hover_at(client, uri, 0, path.read_text().index("GL3") + 1)
    listed = shown.contents.value.splitlines()
    assert listed[0] == "`GL3` names 3 rules:"
    assert [item.split()[1] for item in listed[2:]] == ["`GL301`", "`GL302`", "`GL303`"]


async def test_hover_elsewhere_shows_nothing(client, sample):
    path = sample("rules/gl103_bad.py")
    uri = open_file(client, path)
    await diagnostics_of(client, uri)
    assert await hover_at(client, uri, 0, 1) is None
