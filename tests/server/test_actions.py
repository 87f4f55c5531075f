"""Code actions over LSP: a finding's fix, every fix of a file (``source.fixAll.graphlint``),
and "disable GLxxx for this line"; applied as an editor applies them."""

from __future__ import annotations

import pytest
from lsprotocol import types

from harness import check
from lsp_helpers import (
    SAMPLES,
    apply,
    client_fixture,
    diagnostics_of,
    edits_for,
    open_file,
    sample_fixture,
    started,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")
client = client_fixture()
sample = sample_fixture()


async def actions_at(client, uri: str, diagnostic: types.Diagnostic | None = None, only=None, line: int | None = None):
    where = diagnostic.range if diagnostic is not None else types.Range(types.Position(line, 0), types.Position(line, 0))
    context = types.CodeActionContext(diagnostics=[diagnostic] if diagnostic else [], only=only)
    params = types.CodeActionParams(types.TextDocumentIdentifier(uri), where, context)
    return await client.text_document_code_action_async(params) or []


def fixed_by_graphlint_check(path) -> str:
    """What ``graphlint check --fix`` writes (in this process: harness's ``check``)."""
    code, out, err = check("--no-cache", "--fix", str(path))
    assert code == 0, out + err
    return path.read_text()


async def test_the_quick_fix_gives_the_good_samples_line_and_what_check_fix_writes(client, sample):
    path = sample("rules/gl103_bad.py")
    bad = path.read_text()
    uri = open_file(client, path)
    (found,) = await diagnostics_of(client, uri)
    (fix,) = [a for a in await actions_at(client, uri, found) if a.is_preferred]
    assert (fix.title, fix.kind) == ("graphlint (GL103): Insert `.as_default()`", types.CodeActionKind.QuickFix)
    assert [d.code for d in fix.diagnostics] == ["GL103"]
    assert fix.edit.document_changes[0].text_document.version == 1  # never applied to another text
    fixed = apply(bad, edits_for(fix, uri))
    good_line = next(line for line in (SAMPLES / "rules" / "gl103_good.py").read_text().splitlines() if line.startswith("with "))
    changed = [(old, new) for old, new in zip(bad.splitlines(), fixed.splitlines()) if old != new]
    assert changed == [("with graph:  # GL103", good_line + "  # GL103")]
    assert fixed == fixed_by_graphlint_check(path)


async def test_the_fixed_text_has_no_finding(client, sample):
    path = sample("rules/gl103_bad.py")
    uri = open_file(client, path)
    (found,) = await diagnostics_of(client, uri)
    (fix,) = [a for a in await actions_at(client, uri, found) if a.is_preferred]
    (edit,) = edits_for(fix, uri)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(2, uri), [types.TextDocumentContentChangePartial(edit.range, edit.new_text)]
        )
    )
    assert await diagnostics_of(client, uri, version=2) == []


async def test_fix_all_fixes_every_finding_as_check_fix_does(client, tmp_path):
    path = tmp_path / "two.py"
    path.write_text(
        "import tensorflow as tf\n\ng = tf.Graph()\nh = tf.Graph()\nwith g:\n    a = tf.constant(1)\nwith h:\n    b = tf.constant(2)\n"
    )
    text = path.read_text()
    uri = open_file(client, path)
    assert [d.code for d in await diagnostics_of(client, uri)] == ["GL103", "GL103"]
    (fix_all,) = await actions_at(client, uri, only=[types.CodeActionKind.SourceFixAll], line=0)
    assert (fix_all.title, fix_all.kind) == ("graphlint: Fix all auto-fixable problems", "source.fixAll.graphlint")
    fixed = apply(text, edits_for(fix_all, uri))
    assert "with g.as_default():" in fixed and "with h.as_default():" in fixed
    assert fixed == fixed_by_graphlint_check(path)


async def test_a_quick_fix_request_gets_no_source_action(client, sample):
    path = sample("rules/gl103_bad.py")
    uri = open_file(client, path)
    (found,) = await diagnostics_of(client, uri)
    kinds = {a.kind for a in await actions_at(client, uri, found, only=[types.CodeActionKind.QuickFix])}
    assert kinds == {types.CodeActionKind.QuickFix}


async def test_disable_for_this_line_adds_a_noqa_that_silences_the_finding(client, sample):
    path = sample("rules/gl103_bad.py")
    uri = open_file(client, path)
    (found,) = await diagnostics_of(client, uri)
    (disable,) = [a for a in await actions_at(client, uri, found) if "Disable" in a.title]
    assert disable.title == "graphlint (GL103): Disable for this line"
    fixed = apply(path.read_text(), edits_for(disable, uri))
    assert fixed.splitlines()[14] == "with graph:  # GL103  # noqa: GL103"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(2, uri), [types.TextDocumentContentChangeWholeDocument(fixed)])
    )
    assert await diagnostics_of(client, uri, version=2) == []


async def test_disable_for_this_line_extends_the_codes_of_a_noqa(client, sample):
    path = sample("rules/gl103_bad.py")
    path.write_text(path.read_text().replace("with graph:  # GL103", "with graph:  # noqa: GL301"))
    uri = open_file(client, path)
    (found,) = await diagnostics_of(client, uri)
    (disable,) = [a for a in await actions_at(client, uri, found) if "Disable" in a.title]
    assert apply(path.read_text(), edits_for(disable, uri)).splitlines()[14] == "with graph:  # noqa: GL301, GL103"


async def test_the_actions_can_be_turned_off(sample):
    path = sample("rules/gl103_bad.py")
    settings = {"fixAll": False, "codeAction": {"disableRuleComment": {"enable": False}, "fixViolation": {"enable": False}}}
    async with started(path.parent, settings=settings) as client:
        uri = open_file(client, path)
        (found,) = await diagnostics_of(client, uri)
        assert await actions_at(client, uri, found) == []
