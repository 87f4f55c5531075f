"""A real LSP client (pytest-lsp, on pygls) driving ``graphlint server`` over stdio, and what
the tests ask of it: open a file, wait for its diagnostics, apply an edit.

Not a conftest.py: the test modules of tests/ import tests/conftest.py as ``conftest``, which a
second one would shadow. Each test module makes its fixtures: ``client = client_fixture()``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
SERVER = [sys.executable, "-m", "graphlint", "server"]
#: The same server forked from one Python that imported it once (tests/server/lsp_forkserver.py:
#: ~0.1 s of CPU a server instead of ~0.8), for this process's tests of what a server answers.
#: The tests of the process itself (tests/server/test_lifecycle.py's), of a server with
#: plugins of its own, and the editors' (neovim, emacs) start ``SERVER``.
_FORK_SOCKET = str(Path(tempfile.gettempdir()) / f"graphlint-lsp-{os.getpid()}.sock")
FORKED_SERVER = [sys.executable, "-S", str(Path(__file__).with_name("lsp_forkserver.py")), "launch", _FORK_SOCKET]


class _ForkedConfig(ClientServerConfig):
    """The fork server is started (lsp_forkserver.start) by the first test that asks for a
    forked server, not as the tests are collected."""

    def get_server_command(self, devtools: str | None = None) -> list[str]:
        import lsp_forkserver

        lsp_forkserver.start(_FORK_SOCKET, self.server_env)
        return super().get_server_command(devtools)
#: A hang guard only: every wait ends as soon as what it waits for arrives.
TIMEOUT = 300


def _published(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def _registered(client: LanguageClient, params: types.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)


def make_client() -> LanguageClient:
    """pytest-lsp's client, keeping every publication (with its version) and registration."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []
    client.registrations = []
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _published
    features[types.CLIENT_REGISTER_CAPABILITY] = _registered
    register_lsp_features(client, features)
    return client


def server_config(env: dict | None = None, forked: bool = False) -> ClientServerConfig:
    """The server ``SERVER`` starts, or (``forked``, without an ``env`` of its own: a forked
    server has its packages already) ``FORKED_SERVER``'s."""
    assert not (forked and env), "a forked server finds only the fork server's packages"
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    if forked:
        return _ForkedConfig(server_command=FORKED_SERVER, client_factory=make_client, server_env=environ)
    return ClientServerConfig(server_command=SERVER, client_factory=make_client, server_env=environ)


def client_fixture():
    """The ``client`` fixture: one server for a test module, initialized with a workspace
    folder of its own and ended (``shutdown``, ``exit``) after the module's tests, which open
    files each in a folder of its own. A test module says ``client = client_fixture()`` and
    ``pytestmark = pytest.mark.asyncio(loop_scope="module")``."""

    @pytest_lsp.fixture(config=server_config(forked=True), scope="module")
    async def client(lsp_client: LanguageClient, tmp_path_factory):
        await initialize(lsp_client, tmp_path_factory.mktemp("workspace"))
        yield
        await end_session(lsp_client)

    return client


@contextlib.asynccontextmanager
async def started(*folders: Path, env: dict | None = None, **initialization):
    """A server of the test's own (other settings, folders or plugins), initialized; forked
    (``FORKED_SERVER``) unless it has an ``env`` of its own."""
    lsp = await server_config(env, forked=env is None).start()
    try:
        await initialize(lsp, *folders, **initialization)
        yield lsp
    finally:
        await end_session(lsp)
        await lsp.stop()


async def end_session(client: LanguageClient) -> None:
    """``shutdown`` and ``exit``, as an editor ends; a server never initialized is killed."""
    if client.capabilities is None and client._server is not None:
        client._server.kill()
        return
    await asyncio.wait_for(client.shutdown_session(), TIMEOUT)


def capabilities(notebooks: bool = True) -> types.ClientCapabilities:
    """VS Code's capabilities, with LSP 3.17 notebook sync."""
    caps = client_capabilities("visual-studio-code")
    if notebooks:
        caps.notebook_document = types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities(dynamic_registration=False)
        )
    return caps


async def initialize(client: LanguageClient, *folders: Path, settings: dict | None = None, options: dict | None = None, caps=None):
    """``initialize``/``initialized`` with ``folders`` as the workspace; ``settings``: what the
    client answers to ``workspace/configuration`` (globally)."""
    if settings is not None:
        client.set_configuration(settings, section="graphlint")
    params = types.InitializeParams(
        capabilities=caps or capabilities(),
        root_uri=folders[0].as_uri() if folders else None,
        workspace_folders=[types.WorkspaceFolder(f.as_uri(), f.name) for f in folders] or None,
        initialization_options=options,
    )
    result = await client.initialize_session(params)
    return result


async def until(predicate, what: str = "the server's answer"):
    """Wait for ``predicate()`` to hold (it is looked at as messages arrive)."""
    async def wait():
        while not predicate():
            await asyncio.sleep(0.005)

    try:
        await asyncio.wait_for(wait(), TIMEOUT)
    except asyncio.TimeoutError:
        raise AssertionError(f"no {what} within {TIMEOUT} s") from None


async def diagnostics_of(client: LanguageClient, uri: str, version: int | None = None, after: int = 0) -> list[types.Diagnostic]:
    """The first diagnostics published for ``uri`` (at ``version``) after the ``after``-th
    publication."""
    def found():
        return next(
            (p for p in client.published[after:] if p.uri == uri and (version is None or p.version == version)), None
        )

    await until(lambda: found() is not None, f"diagnostics for {uri} (version {version})")
    return list(found().diagnostics)


def open_file(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    text = path.read_text() if text is None else text
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", version, text)))
    return uri


def change(client: LanguageClient, uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
    """An incremental change, as editors send them (positions in UTF-16 units)."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version, uri),
            [types.TextDocumentContentChangePartial(types.Range(types.Position(*start), types.Position(*end)), text)],
        )
    )


def _offset(lines: list[str], position: types.Position) -> int:
    """A position (UTF-16 units, as the client declared) as a character offset."""
    offset = sum(len(line) for line in lines[: position.line])
    text = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(text):
        if units >= position.character:
            return offset + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return offset + len(text.rstrip("\r\n"))


def apply(text: str, edits) -> str:
    """``text`` with LSP text edits applied, as a client applies them (all against the text
    before any of them)."""
    lines = re.split(r"(?<=\n)", text)
    spans = sorted(((_offset(lines, e.range.start), _offset(lines, e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def edits_for(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    edit = action.edit
    if edit.document_changes:
        return [e for change in edit.document_changes if change.text_document.uri == uri for e in change.edits]
    return list((edit.changes or {}).get(uri, []))


def findings_of(path: Path, *args: str) -> list[dict]:
    """``graphlint check --format json PATH`` (a folder: from inside it), in this process (the
    harness's ``check_json``: the command's own code and output, without a Python of its own)."""
    from harness import check_json

    code, findings = check_json("--no-cache", *args, str(path), cwd=path if path.is_dir() else path.parent)
    assert code in (0, 1), code
    return findings


def sample_fixture():
    """The ``sample`` fixture: ``sample(name, *others)`` copies samples (paths under samples/)
    into a folder of their own and returns the first copy."""

    @pytest.fixture
    def sample(tmp_path):
        def copy(name: str, *others: str) -> Path:
            import shutil

            for other in (name, *others):
                shutil.copy(SAMPLES / other, tmp_path / Path(other).name)
            return tmp_path / Path(name).name

        return copy

    return sample


def plugin_env(folder: Path, code: str, body: str) -> dict:
    """A rule plugin installed in ``folder`` (a distribution's entry point, as pip writes it):
    rule ``code`` whose ``check_module(self, module)`` runs ``body``. The server's
    environment that finds it."""
    name = f"rule_{code.lower()}"
    (folder / f"{name}-1.0.dist-info").mkdir(parents=True)
    (folder / f"{name}-1.0.dist-info" / "entry_points.txt").write_text(f"[graphlint]\n{code} = {name}:Plugin\n")
    source = (
        "import os, time\nfrom graphlint import Rule, Severity\n\n"
        "class Plugin(Rule):\n"
        '    """A rule plugin of the tests."""\n\n'
        f'    code, name, severity, engines = "{code}", "{name}", Severity.WARNING, ("static",)\n\n'
        "    def check_module(self, module):\n"
    )
    (folder / f"{name}.py").write_text(source + textwrap.indent(textwrap.dedent(body), " " * 8))
    return {"PYTHONPATH": os.pathsep.join([str(ROOT), str(folder)])}
