"""The server keeps the editor's text as the editor has it, whatever the text holds: LSP ends
lines at ``\\r\\n``, ``\\r`` and ``\\n`` only, while ``str.splitlines`` (which pygls' own text
documents split by) also breaks at a form feed, ``\\v``, ``\\x1c``-``\\x1e``, ``\\x85``,
``\\u2028`` and ``\\u2029``: an incremental change below one of them would land on another
line, the server would check a text the editor does not hold, and its fixes, applied by the
editor to its own text, would damage it."""

from __future__ import annotations

import os

import pytest
from lsprotocol import types

from lsp_helpers import apply, change, client_fixture, diagnostics_of, edits_for, open_file

pytestmark = pytest.mark.asyncio(loop_scope="module")
client = client_fixture()

#: characters ``str.splitlines`` breaks at and LSP does not (a form feed is PEP 8's page break)
ODD = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("odd", ODD, ids=[f"U+{ord(c):04X}" for c in ODD])
async def test_an_edit_below_an_odd_line_break_lands_where_the_editor_made_it(client, tmp_path, odd):
    path = tmp_path / "paged.py"
    text = f"import tensorflow as tf\n# page{odd}break\ns = '{odd}'\nx = 1\n"
    path.write_text(text, newline="")
    uri = open_file(client, path, text)
    assert await diagnostics_of(client, uri, version=1) == []
    change(client, uri, 2, (3, 0), (3, 5), "with tf.Graph():\n    pass")
    edited = text.replace("x = 1", "with tf.Graph():\n    pass")
    (found,) = await diagnostics_of(client, uri, version=2)
    assert (found.code, found.range.start) == ("GL103", types.Position(3, 5))
    context = types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll])
    params = types.CodeActionParams(types.TextDocumentIdentifier(uri), types.Range(types.Position(0, 0), types.Position(0, 0)), context)
    (fix_all,) = await client.text_document_code_action_async(params)
    assert apply(edited, edits_for(fix_all, uri)) == edited.replace("tf.Graph():", "tf.Graph().as_default():")


FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"


async def test_a_document_whose_path_is_a_fifo_is_checked_from_its_buffer(client, tmp_path):
    """Nothing at the document's path is read unless it is a regular file: a FIFO would block
    the server's one checking thread for good (and ``/dev/zero`` never end)."""
    path = tmp_path / "pipe.py"
    os.mkfifo(path)
    uri = open_file(client, path, FIXABLE)
    assert [d.code for d in await diagnostics_of(client, uri, version=1)] == ["GL103"]
    after = open_file(client, tmp_path / "after.py", FIXABLE)
    assert [d.code for d in await diagnostics_of(client, after, version=1)] == ["GL103"]


async def test_a_document_that_is_no_file_is_checked(client):
    uri = "untitled:Untitled-1"
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, FIXABLE)))
    assert [d.code for d in await diagnostics_of(client, uri, version=1)] == ["GL103"]


async def test_a_change_outside_the_document_leaves_the_server_checking(client, tmp_path):
    """A range past the end, or ending before it starts (a client's bug): the server goes on
    checking what pygls made of it, and the next whole-text change puts it right."""
    path = tmp_path / "ranges.py"
    uri = open_file(client, path, FIXABLE)
    await diagnostics_of(client, uri, version=1)
    change(client, uri, 2, (40, 3), (50, 0), "x = 1\n")
    change(client, uri, 3, (1, 9), (0, 2), "")
    await diagnostics_of(client, uri, version=3)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(4, uri), [types.TextDocumentContentChangeWholeDocument(FIXABLE)])
    )
    assert [d.code for d in await diagnostics_of(client, uri, version=4)] == ["GL103"]


async def test_a_document_over_the_size_limit_is_one_gl001_and_the_server_goes_on(client, tmp_path):
    line = "x = 1  # " + "padding " * 12 + "\n"
    huge = FIXABLE + line * (11 * 1024 * 1024 // len(line))
    uri = open_file(client, tmp_path / "huge.py", huge)
    (found,) = await diagnostics_of(client, uri, version=1)
    assert found.code == "GL001" and "too large" in found.message
    after = open_file(client, tmp_path / "after.py", FIXABLE)
    assert [d.code for d in await diagnostics_of(client, after, version=1)] == ["GL103"]


async def test_a_fix_is_offered_only_for_the_text_the_editor_holds(client, tmp_path):
    """A document whose coding cookie names a codec that cannot hold its text (a snowman in a
    latin-1 file) is checked as UTF-8 bytes read as latin-1: its columns differ from the
    editor's after the snowman, and a fix placed by them would land in the wrong place."""
    text = "# -*- coding: latin-1 -*-\nimport tensorflow as tf\nwith open('\u2603'), tf.Graph():\n    pass\n"
    uri = open_file(client, tmp_path / "snow.py", text)
    await diagnostics_of(client, uri, version=1)
    context = types.CodeActionContext(diagnostics=[])
    params = types.CodeActionParams(types.TextDocumentIdentifier(uri), types.Range(types.Position(0, 0), types.Position(3, 0)), context)
    for action in await client.text_document_code_action_async(params) or []:
        if action.edit is not None and "Disable" not in action.title:
            fixed = apply(text, edits_for(action, uri))
            assert fixed == text.replace("tf.Graph()", "tf.Graph().as_default()"), action.title
