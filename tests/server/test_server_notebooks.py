"""Notebooks over LSP 3.17 notebook sync: each cell a text document, each finding in the
cell it names, as ``graphlint check`` reports it for the ``.ipynb`` file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from lsp_helpers import SAMPLES, apply, client_fixture, diagnostics_of, edits_for, findings_of, until

pytestmark = pytest.mark.asyncio(loop_scope="module")
client = client_fixture()
NOTEBOOK = SAMPLES / "notebooks" / "static_bad.ipynb"


def cells_of(path: Path) -> list[tuple[str, str]]:
    """``(kind, source)`` of each cell of a notebook file."""
    doc = json.loads(path.read_text())
    return [(cell["cell_type"], "".join(cell["source"])) for cell in doc["cells"]]


def cell_uri(path: Path, index: int) -> str:
    return f"vscode-notebook-cell:{path}#ch{index}"


def open_notebook(client, path: Path) -> list[str]:
    """``notebookDocument/didOpen`` as VS Code sends it; the cells' URIs."""
    cells, items = [], []
    for i, (kind, source) in enumerate(cells_of(path)):
        uri = cell_uri(path, i)
        code = kind == "code"
        cells.append(types.NotebookCell(types.NotebookCellKind.Code if code else types.NotebookCellKind.Markup, uri))
        items.append(types.TextDocumentItem(uri, "python" if code else "markdown", 1, source))
    metadata = json.loads(path.read_text())["metadata"]
    notebook = types.NotebookDocument(path.as_uri(), "jupyter-notebook", 1, cells, metadata=metadata)
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(notebook, items))
    return [c.document for c in cells]


def change_cells(client, path: Path, version: int, change: types.NotebookDocumentCellChanges) -> None:
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            types.VersionedNotebookDocumentIdentifier(version, path.as_uri()), types.NotebookDocumentChangeEvent(cells=change)
        )
    )


@pytest.fixture
def notebook(tmp_path) -> Path:
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    return tmp_path / NOTEBOOK.name


async def test_each_finding_is_in_its_cell_as_check_reports_it(client, notebook):
    uris = open_notebook(client, notebook)
    expected = sorted((f["cell"], f["code"], f["line"], f["column"]) for f in findings_of(notebook))
    assert [code for _, code, _, _ in expected] == ["GL301", "GL103", "GL503"]
    got = []
    for index, uri in enumerate(uris):
        for d in await diagnostics_of(client, uri, version=1):
            got.append((index + 1, d.code, d.range.start.line + 1, d.range.start.character + 1))
    assert sorted(got) == expected


async def test_an_edited_cell_is_checked_again(client, notebook):
    uris = open_notebook(client, notebook)
    await diagnostics_of(client, uris[4], version=1)
    cell = uris[4]  # `%%time\nwith tf.Graph():  # GL103\n...`
    text = types.TextDocumentContentChangePartial(types.Range(types.Position(1, 15), types.Position(1, 15)), ".as_default()")
    change_cells(client, notebook, 2, types.NotebookDocumentCellChanges(text_content=[
        types.NotebookDocumentCellContentChanges(types.VersionedTextDocumentIdentifier(2, cell), [text])
    ]))
    await until(lambda: any(p.uri == cell and p.version == 2 for p in client.published), "the cell's new diagnostics")
    assert client.diagnostics[cell] == ()
    assert [d.code for d in client.diagnostics[uris[3]]] == ["GL301"]


async def test_a_cell_added_above_moves_the_findings_with_their_cells(client, notebook):
    uris = open_notebook(client, notebook)
    await diagnostics_of(client, uris[4], version=1)
    new = f"vscode-notebook-cell:{notebook}#new"
    structure = types.NotebookDocumentCellChangeStructure(
        array=types.NotebookCellArrayChange(0, 0, [types.NotebookCell(types.NotebookCellKind.Code, new)]),
        did_open=[types.TextDocumentItem(new, "python", 1, "import os\n")],
    )
    seen = len(client.published)
    change_cells(client, notebook, 2, types.NotebookDocumentCellChanges(structure=structure))
    assert [d.code for d in await diagnostics_of(client, uris[4], after=seen)] == ["GL103"]
    assert await diagnostics_of(client, new, after=seen) == []


async def test_fix_all_edits_the_cells(client, notebook):
    uris = open_notebook(client, notebook)
    await diagnostics_of(client, uris[4], version=1)
    context = types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll])
    params = types.CodeActionParams(types.TextDocumentIdentifier(uris[4]), types.Range(types.Position(0, 0), types.Position(0, 0)), context)
    (fix_all,) = await client.text_document_code_action_async(params)
    source = cells_of(notebook)[4][1]
    assert apply(source, edits_for(fix_all, uris[4])).splitlines()[1] == "with tf.Graph().as_default():  # GL103"


async def test_closing_a_notebook_clears_every_cell(client, notebook):
    uris = open_notebook(client, notebook)
    await diagnostics_of(client, uris[5], version=1)
    seen = len(client.published)
    cells = [types.TextDocumentIdentifier(uri) for uri in uris]
    client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(types.NotebookDocumentIdentifier(notebook.as_uri()), cells))
    for uri in (uris[3], uris[4], uris[5]):
        assert await diagnostics_of(client, uri, after=seen) == []
