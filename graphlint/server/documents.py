"""What the server checks for a document the editor has open: a path and the bytes it holds.

A text document is its text as the file would hold it once saved (encoded as its coding
cookie says). A notebook (LSP 3.17 notebook sync: each cell a text document) becomes the
``.ipynb`` JSON the engine reads for a notebook file, every cell in order, markdown too, so
that a finding's cell number (graphlint.static.notebook counts every cell from 1) is the
position of the cell's document in the notebook, plus one.

A :class:`Snapshot` keeps the texts it was made from: the positions of a check's findings
are positions in those texts, whatever the editor holds by the time they are published.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Callable

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument, Workspace

from graphlint.findings import Location
from graphlint.reading import source_encoding

#: The line breaks of Python and of LSP positions (``str.splitlines`` knows more of them).
LINE_BREAK = re.compile(r"\r\n|\r|\n")


#: A line with its break, LSP's way (``str.splitlines(True)`` but at LSP's breaks only).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lines_of(text: str) -> list[str]:
    return LINE_BREAK.split(text)


class LspTextDocument(TextDocument):
    """pygls' text document, its lines ended at LSP's line breaks. pygls splits them with
    ``str.splitlines``, which also breaks at a form feed, ``\\v``, ``\\x1c``-``\\x1e``,
    ``\\x85``, ``\\u2028`` and ``\\u2029``: an incremental change below one of them was
    applied to another line than the editor's, and every check (and fix) after it read a text
    the editor does not hold."""

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(_LINE.findall(self.source))


class LspWorkspace(Workspace):
    """pygls' workspace whose text documents (files and notebook cells) are
    :class:`LspTextDocument`: what the server's workspace becomes at ``initialize``."""

    def _create_text_document(self, doc_uri, source=None, version=None, language_id=None):  # type: ignore[no-untyped-def]
        return LspTextDocument(
            doc_uri, source=source, version=version, language_id=language_id,
            sync_kind=self._sync_kind, position_codec=self._position_codec,
        )


def path_of(uri: str) -> str:
    """The file a document stands for; a document that is no file (``untitled:``) is named by
    its URI."""
    path = to_fs_path(uri)
    return os.path.abspath(path) if path else uri


def uri_of(path: str) -> str:
    return path if ":" in path and not os.path.isabs(path) else from_fs_path(path)


@dataclass(frozen=True)
class Snapshot:
    """A document as one check reads it. ``key``: its URI (a notebook's for its cells);
    ``cells``: a notebook's cell URIs in notebook order, ``texts`` and ``versions`` their
    texts and versions (a text document: its URI, text and version alone)."""

    key: str
    path: str
    data: bytes
    version: int | None
    cells: tuple[str, ...]
    texts: tuple[str, ...]
    versions: tuple[int | None, ...]
    notebook: bool = False
    _lines: dict = field(default_factory=dict, compare=False, repr=False)

    def lines(self, index: int) -> list[str]:
        if index not in self._lines:
            self._lines[index] = lines_of(self.texts[index])
        return self._lines[index]

    def index_of(self, location: Location) -> int | None:
        """Which of :attr:`cells` holds ``location`` (None: another file, or no cell)."""
        if os.path.abspath(location.path) != self.path and location.path != self.path:
            return None
        if not self.notebook:
            return 0
        index = (location.cell or 0) - 1
        return index if 0 <= index < len(self.cells) else None

    def index_of_uri(self, uri: str) -> int | None:
        try:
            return self.cells.index(uri)
        except ValueError:
            return None


def text_snapshot(uri: str, text: str, version: int | None) -> Snapshot:
    return Snapshot(uri, path_of(uri), encode(text), version, (uri,), (text,), (version,))


def encode(text: str) -> bytes:
    """The bytes of ``text`` saved as its coding cookie says (UTF-8 without one). A text the
    declared codec cannot hold stays UTF-8: the engine then says why it cannot decode it."""
    data = text.encode("utf-8", "surrogatepass")
    try:
        encoding = source_encoding(data)
    except SyntaxError:  # a cookie naming an unknown codec: GL001 from the engine
        return data
    if encoding in ("utf-8", "utf-8-sig"):
        return data
    try:
        return text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return data


def notebook_snapshot(notebook: types.NotebookDocument, cell_text: Callable[[str], tuple[str, str, int | None]]) -> Snapshot:
    """``cell_text(uri)``: the cell document's ``(text, language id, version)``. A code cell in
    another language than Python counts as a markdown cell: the engine leaves it out."""
    cells: list[dict] = []
    uris: list[str] = []
    texts: list[str] = []
    versions: list[int | None] = []
    for cell in notebook.cells:
        text, language, version = cell_text(cell.document)
        code = cell.kind == types.NotebookCellKind.Code and language in ("python", "")
        cells.append({"cell_type": "code" if code else "markdown", "metadata": {}, "source": text})
        if code:
            cells[-1].update(execution_count=None, outputs=[])
        uris.append(cell.document)
        texts.append(text)
        versions.append(version)
    metadata: dict = notebook.metadata if isinstance(notebook.metadata, dict) else {}
    doc = {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    data = json.dumps(doc).encode("ascii")
    path = path_of(notebook.uri)
    if not path.endswith(".ipynb"):  # an untitled notebook: the engine reads it as one
        path += ".ipynb"
    return Snapshot(notebook.uri, path, data, notebook.version, tuple(uris), tuple(texts), tuple(versions), True)
