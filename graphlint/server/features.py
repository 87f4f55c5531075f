"""The LSP methods the server answers, each a thin call into :class:`GraphlintServer`.

A method the server does not know gets pygls' "method not found" (a notification: nothing);
``$/cancelRequest`` cancels a code action or hover still waiting for its check. ``exit`` ends
the process at once, with status 0 after ``shutdown`` and 1 without, as LSP says.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Callable

from lsprotocol import types
from pygls.workspace import Workspace

from graphlint.findings import Finding
from graphlint.server import lifecycle
from graphlint.server.actions import FIX_ALL, code_actions
from graphlint.server.diagnostics import at, diagnostic, where
from graphlint.server.documents import LspWorkspace, lines_of, path_of
from graphlint.server.hover import hover
from graphlint.server.server import GraphlintServer

logger = logging.getLogger("graphlint.server")
#: Files whose change the server hears of (dynamic registration, where the client offers it):
#: the sources, and the configuration files (graphlint.config_files.NAMES, and any the
#: settings name).
WATCHED = ("**/*.py",)


def _python(document: Any) -> bool:
    path = document.uri.lower()
    return path.endswith(".py") or (document.language_id == "python" and not path.endswith(".pyi"))


def _on(server: GraphlintServer, method: str, document: str, act: Callable[[GraphlintServer, str], None]) -> None:
    """``act(server, uri)`` on each ``method`` notification, for the URI of its ``document``
    (``text_document`` or ``notebook_document``)."""

    @server.feature(method)
    def handler(ls: GraphlintServer, params: Any) -> None:
        act(ls, getattr(params, document).uri)


def register(server: GraphlintServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: GraphlintServer, params: types.InitializeParams) -> None:
        # pygls made the workspace just before: its documents are to keep LSP's lines
        if type(ls.workspace) is Workspace:
            ls.workspace.__class__ = LspWorkspace
        options = params.initialization_options
        if isinstance(options, dict):
            ls.initial = ls.initial.merged(options.get("settings", options), ls.warn)
            ls.settings = ls.initial
        if params.process_id:
            lifecycle.watch_parent(params.process_id)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: GraphlintServer, params: types.InitializedParams) -> None:
        try:
            await ls.pull_settings()
        except Exception:  # graphlint's own failure: the defaults, and the checks go on
            logger.exception("graphlint: cannot read the client's settings")
            ls.apply_settings(None, {})
        watched = getattr(getattr(ls.client_capabilities.workspace, "did_change_watched_files", None), "dynamic_registration", False)
        if watched:
            patterns = list(WATCHED) + [f"**/{name}" for name in sorted(ls.configuration_names())]
            options = types.DidChangeWatchedFilesRegistrationOptions([types.FileSystemWatcher(p) for p in patterns])
            registration = types.Registration("graphlint-watched-files", types.WORKSPACE_DID_CHANGE_WATCHED_FILES, options)
            try:
                await ls.client_register_capability_async(types.RegistrationParams([registration]))
            except Exception as exc:
                ls.warn(f"graphlint: cannot watch files ({exc}): reopen a file after changing its configuration")

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: GraphlintServer, params: None) -> None:
        ls.shut_down = True
        for doc in ls.docs.values():
            if doc.timer is not None:
                doc.timer.cancel()

    @server.feature(types.EXIT)
    def on_exit(ls: GraphlintServer, params: None) -> None:
        lifecycle.end(0 if ls.shut_down else 1)

    # -- documents and notebooks ---------------------------------------------------------------
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GraphlintServer, params: types.DidOpenTextDocumentParams) -> None:
        if _python(params.text_document) and ls.workspace.get_notebook_document(cell_uri=params.text_document.uri) is None:
            ls.track(params.text_document.uri, notebook=False)
            ls.changed(params.text_document.uri, typed=False)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: GraphlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.track(params.notebook_document.uri, notebook=True)
        ls.changed(params.notebook_document.uri, typed=False)

    for document, (did_change, did_save, did_close) in {
        "text_document": (types.TEXT_DOCUMENT_DID_CHANGE, types.TEXT_DOCUMENT_DID_SAVE, types.TEXT_DOCUMENT_DID_CLOSE),
        "notebook_document": (types.NOTEBOOK_DOCUMENT_DID_CHANGE, types.NOTEBOOK_DOCUMENT_DID_SAVE, types.NOTEBOOK_DOCUMENT_DID_CLOSE),
    }.items():
        _on(server, did_change, document, GraphlintServer.changed)
        _on(server, did_save, document, lambda ls, uri: ls.changed(uri, typed=False))
        _on(server, did_close, document, GraphlintServer.close)

    # -- the workspace -------------------------------------------------------------------------
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: GraphlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [(path_of(change.uri), change.type) for change in params.changes]
        if any(os.path.basename(p) in ls.configuration_names() for p, _ in paths):
            ls.job(ls.configs.clear, lambda _: ls.recheck_all())
        sources = [p for p, _ in paths if p.endswith(".py")]
        if sources:
            appeared = any(kind != types.FileChangeType.Changed for p, kind in paths if p.endswith(".py"))
            then = (lambda _: ls.recheck_all()) if appeared else ls.recheck
            ls.job(lambda: ls.checker.on_disk(sources, appeared), then)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(ls: GraphlintServer, params: types.DidChangeConfigurationParams) -> None:
        supported = getattr(ls.client_capabilities.workspace, "configuration", False)
        if supported:
            await ls.pull_settings()
        elif isinstance(params.settings, dict):
            ls.apply_settings(params.settings.get("graphlint", params.settings), {})

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def folders_changed(ls: GraphlintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        await ls.pull_settings()

    # -- code actions and hover ----------------------------------------------------------------
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    async def actions(ls: GraphlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        key = ls.document_of(params.text_document.uri)
        checked = await ls.current(key) if key is not None else None
        if checked is None:
            return None
        settings, _ = ls.settings_for(checked.snapshot.path)
        codec = ls.workspace.position_codec
        versioned = getattr(getattr(getattr(ls.client_capabilities, "workspace", None), "workspace_edit", None), "document_changes", False)

        def diagnostic_of(finding: Finding) -> types.Diagnostic:
            _, lines = where(checked, finding.location, ls.lines_elsewhere)
            return diagnostic(finding, lines, codec, lambda loc: where(checked, loc, ls.lines_elsewhere))

        lines = (params.range.start.line, params.range.end.line)
        return code_actions(checked, params.text_document.uri, lines, params.context.only, settings, codec, diagnostic_of, bool(versioned)) or None

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: GraphlintServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        key = ls.document_of(uri)
        checked = await ls.current(key) if key is not None else None
        if key is None or checked is None:
            return None
        doc = ls.docs.get(key)
        if doc is None:  # closed meanwhile
            return None
        lines = lines_of(ls.workspace.get_text_document(uri).source)
        if not 0 <= params.position.line < len(lines):
            return None
        codec = ls.workspace.position_codec
        position = codec.position_from_client_units(lines, params.position)
        here = at(doc.published.get(uri, []), params.position)
        line = params.position.line

        def to_client(character: int) -> types.Position:
            return codec.position_to_client_units(lines, types.Position(line, character))

        return hover(lines[line], position.character, here, ls.rules, to_client)
