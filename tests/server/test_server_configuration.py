"""Configuration over LSP: each file's closest ``[tool.graphlint]``, read again when a
``pyproject.toml`` changes; the editor's settings (``workspace/configuration``, named as ruff's
server names them) per workspace folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from lsp_helpers import (
    SAMPLES,
    capabilities,
    diagnostics_of,
    end_session,
    initialize,
    open_file,
    server_config,
    started,
    until,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")
BAD = SAMPLES / "rules" / "gl103_bad.py"


def project(root: Path, pyproject: str | None = None, name: str = "bad.py") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject)
    shutil.copy(BAD, root / name)
    return root / name


async def codes(client, path: Path, **wait) -> list[str]:
    return [d.code for d in await diagnostics_of(client, path.as_uri(), **wait)]


@pytest.mark.parametrize("name, table", [("pyproject.toml", "[tool.graphlint]\n"), ("graphlint.toml", "")])
async def test_the_closest_configuration_applies_and_is_read_again_when_it_changes(tmp_path, name, table):
    outer = project(tmp_path, "[tool.graphlint]\n")
    inner = project(tmp_path / "sub")
    (tmp_path / "sub" / name).write_text(table + 'ignore = ["GL103"]\n')
    async with started(tmp_path) as client:
        open_file(client, outer)
        open_file(client, inner)
        assert await codes(client, outer) == ["GL103"]
        assert await codes(client, inner) == []
        watched = {w["globPattern"] for r in client.registrations for w in r.register_options["watchers"]}
        assert f"**/{name}" in watched
        (tmp_path / "sub" / name).write_text(table)
        seen = len(client.published)
        event = types.FileEvent((tmp_path / "sub" / name).as_uri(), types.FileChangeType.Changed)
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([event]))
        assert await codes(client, inner, after=seen) == ["GL103"]


async def test_the_editors_codes_apply_and_are_asked_again_when_they_change(tmp_path):
    path = project(tmp_path)
    async with started(tmp_path, settings={"lint": {"ignore": ["GL103"]}}) as client:
        open_file(client, path)
        assert await codes(client, path) == []
        client.set_configuration({"lint": {"select": ["GL1"]}}, section="graphlint")
        seen = len(client.published)
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        assert await codes(client, path, after=seen) == ["GL103"]


async def test_each_workspace_folder_has_its_own_settings(tmp_path):
    quiet, loud = project(tmp_path / "quiet"), project(tmp_path / "loud")
    lsp = await server_config(forked=True).start()
    try:
        lsp.set_configuration({"lint": {"ignore": ["GL1"]}}, section="graphlint", scope_uri=(tmp_path / "quiet").as_uri())
        await initialize(lsp, tmp_path / "quiet", tmp_path / "loud")
        open_file(lsp, quiet)
        open_file(lsp, loud)
        assert await codes(lsp, quiet) == []
        assert await codes(lsp, loud) == ["GL103"]
    finally:
        await end_session(lsp)
        await lsp.stop()


@pytest.mark.parametrize(
    "preference, reported",
    [("editorFirst", ["GL103"]), ("filesystemFirst", []), ("editorOnly", ["GL103"])],
)
async def test_configuration_preference_orders_the_editors_codes_and_the_files(tmp_path, preference, reported):
    path = project(tmp_path, '[tool.graphlint]\nselect = ["GL3"]\n')
    settings = {"configurationPreference": preference, "lint": {"select": ["GL1"]}}
    async with started(tmp_path, settings=settings) as client:
        open_file(client, path)
        assert await codes(client, path) == reported


async def test_a_configuration_file_named_in_the_settings_replaces_the_projects(tmp_path):
    path = project(tmp_path / "proj", '[tool.graphlint]\nignore = ["GL103"]\n')
    (tmp_path / "team.toml").write_text('select = ["GL1"]\n')
    settings = {"configuration": str(tmp_path / "team.toml")}
    async with started(tmp_path / "proj", settings=settings) as client:
        open_file(client, path)
        assert await codes(client, path) == ["GL103"]


async def test_a_configuration_that_cannot_be_used_is_said_once_and_the_defaults_apply(tmp_path):
    path = project(tmp_path, '[tool.graphlint]\nselct = ["GL1"]\n')
    async with started(tmp_path) as client:
        open_file(client, path)
        assert await codes(client, path) == ["GL103"]
        await until(lambda: client.messages, "a message to the user")
        (message,) = client.messages
        assert message.type == types.MessageType.Warning
        assert "unknown setting 'selct'" in message.message and "checking with the defaults" in message.message


async def test_lint_enable_false_reports_nothing(tmp_path):
    path = project(tmp_path)
    async with started(tmp_path, settings={"lint": {"enable": False}}) as client:
        open_file(client, path)
        assert await codes(client, path) == []


async def test_settings_given_at_initialization_apply_without_workspace_configuration(tmp_path):
    """A client that does not answer ``workspace/configuration`` (Helix's ``config``, eglot's
    ``:initializationOptions``) passes them in ``initializationOptions.settings``."""
    path = project(tmp_path)
    caps = capabilities()
    caps.workspace.configuration = False
    async with started(tmp_path, options={"settings": {"lint": {"ignore": ["GL103"]}}}, caps=caps) as client:
        open_file(client, path)
        assert await codes(client, path) == []
