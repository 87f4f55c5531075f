"""Diagnostics over LSP: a real client opens, edits, saves and closes files; what the server
publishes is what ``graphlint check`` reports for the same text."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from lsp_helpers import (
    SAMPLES,
    change,
    client_fixture,
    diagnostics_of,
    findings_of,
    open_file,
    plugin_env,
    sample_fixture,
    started,
    until,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")
client = client_fixture()
sample = sample_fixture()

BAD_SAMPLES = sorted((SAMPLES / "rules").glob("gl*_bad*.py"))


def as_reported(diagnostic: types.Diagnostic) -> tuple:
    """A diagnostic as ``graphlint check`` writes a finding: code, line, column (1-based),
    message and fix."""
    message, _, fix = diagnostic.message.partition("\nfix: ")
    return (diagnostic.code, diagnostic.range.start.line + 1, diagnostic.range.start.character + 1, message, fix)


def reported(finding: dict) -> tuple:
    return (finding["code"], finding["line"], finding["column"], finding["message"], finding["fix"])


async def test_every_bad_sample_gets_what_graphlint_check_reports(client, tmp_path):
    for path in BAD_SAMPLES:
        shutil.copy(path, tmp_path / path.name)
    expected: dict[str, list] = {path.name: [] for path in BAD_SAMPLES}
    for finding in findings_of(tmp_path):
        expected[Path(finding["path"]).name].append(reported(finding))
    assert sum(map(len, expected.values())) >= 20
    for path in BAD_SAMPLES:
        open_file(client, tmp_path / path.name)
    for path in BAD_SAMPLES:
        got = await diagnostics_of(client, (tmp_path / path.name).as_uri(), version=1)
        assert sorted(map(as_reported, got)) == sorted(expected[path.name]), path.name


async def test_a_diagnostic_carries_severity_source_link_and_range(client, sample):
    path = sample("rules/gl103_bad.py")
    (found,) = await diagnostics_of(client, open_file(client, path))
    assert found.severity == types.DiagnosticSeverity.Error
    assert found.source == "graphlint"
    assert found.code_description.href == "https://github.com/graphlint/graphlint/blob/main/docs/rules/GL103.md"
    line = path.read_text().splitlines()[14]
    assert line == "with graph:  # GL103"
    assert (found.range.start, found.range.end) == (types.Position(14, 5), types.Position(14, 10))  # `graph`


async def test_related_sites_in_another_module_name_its_file(client, sample):
    path = sample("across_modules/gl501_bad_across_modules.py", "across_modules/retracing_steps.py")
    (found,) = await diagnostics_of(client, open_file(client, path))
    assert found.code == "GL501"
    sites = [(r.location.uri, r.location.range.start.line + 1, r.message) for r in found.related_information]
    assert sites == [
        ((path.parent / "retracing_steps.py").as_uri(), 10, "`train_step()` is defined here"),
        (path.as_uri(), 12, "the loop"),
    ]


async def test_an_edit_is_checked_again_and_only_its_version_is_published(client, sample):
    path = sample("rules/gl103_bad.py")
    uri = open_file(client, path)
    assert [d.code for d in await diagnostics_of(client, uri, version=1)] == ["GL103"]
    change(client, uri, 2, (14, 10), (14, 10), ".as_default()")
    assert await diagnostics_of(client, uri, version=2) == []
    change(client, uri, 3, (14, 10), (14, 23), "")
    assert [d.code for d in await diagnostics_of(client, uri, version=3)] == ["GL103"]


async def test_columns_are_utf16_units_after_characters_outside_the_bmp(client, tmp_path):
    path = tmp_path / "emoji.py"
    path.write_text('import tensorflow as tf\n\nfor i in range(3):\n    label = "\U0001F600"; sess = tf.compat.v1.Session()\n')
    (found,) = await diagnostics_of(client, open_file(client, path))
    (expected,) = findings_of(path)
    line = path.read_text().splitlines()[3]
    assert expected["column"] - 1 == line.index("tf.compat")  # characters
    assert (found.code, found.range.start) == ("GL301", types.Position(3, line.index("tf.compat") + 1))  # UTF-16
    assert found.range.end == types.Position(3, len(line) + 1)  # the call, to its parenthesis


async def test_on_save_a_change_is_checked_when_saved(sample):
    path = sample("rules/gl103_bad.py", "rules/gl103_good.py")
    async with started(path.parent, settings={"lint": {"run": "onSave"}}) as client:
        uri = open_file(client, path)
        await diagnostics_of(client, uri, version=1)
        change(client, uri, 2, (14, 10), (14, 10), ".as_default()")
        # a barrier: checks run one after the other, in order, so a check of the change would
        # have been published before the diagnostics of a file opened after it
        await diagnostics_of(client, open_file(client, path.parent / "gl103_good.py"))
        assert [p.version for p in client.published if p.uri == uri] == [1]
        client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
        assert await diagnostics_of(client, uri, version=2) == []


async def test_closing_a_file_clears_its_diagnostics(client, sample):
    path = sample("rules/gl103_bad.py")
    uri = open_file(client, path)
    await diagnostics_of(client, uri)
    seen = len(client.published)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert await diagnostics_of(client, uri, after=seen) == []


async def test_a_file_that_does_not_parse_is_gl001_at_the_error_and_the_server_goes_on(client, sample):
    path = sample("rules/gl103_bad.py")
    uri = open_file(client, path)
    await diagnostics_of(client, uri, version=1)
    change(client, uri, 2, (14, 10), (14, 11), "")  # `with graph` without its colon
    (found,) = await diagnostics_of(client, uri, version=2)
    broken = path.read_text().replace("with graph:", "with graph", 1)
    path.write_text(broken)
    (expected,) = findings_of(path)
    assert as_reported(found)[:4] == (expected["code"], expected["line"], expected["column"], expected["message"])
    assert (found.code, found.range.start.line) == ("GL001", 14)
    change(client, uri, 3, (14, 10), (14, 10), ":")
    assert [d.code for d in await diagnostics_of(client, uri, version=3)] == ["GL103"]


async def test_an_unsaved_module_stands_for_its_file_in_the_modules_that_import_it(client, sample):
    main = sample("across_modules/gl501_bad_across_modules.py", "across_modules/retracing_steps.py")
    steps = main.parent / "retracing_steps.py"
    main_uri = open_file(client, main)
    assert [d.code for d in await diagnostics_of(client, main_uri)] == ["GL501"]
    steps_uri = open_file(client, steps)
    await diagnostics_of(client, steps_uri)
    seen = len(client.published)
    change(client, steps_uri, 2, (9, 0), (10, 0), "")  # `@tf.function` removed, not saved
    assert await diagnostics_of(client, main_uri, after=seen) == []
    seen = len(client.published)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(steps_uri)))
    assert [d.code for d in await diagnostics_of(client, main_uri, after=seen)] == ["GL501"]


async def test_a_module_changed_on_disk_refreshes_the_files_that_import_it(client, sample):
    main = sample("across_modules/gl501_bad_across_modules.py", "across_modules/retracing_steps.py")
    steps = main.parent / "retracing_steps.py"
    await until(lambda: client.registrations, "a file watcher registration")
    watched = [w["globPattern"] for r in client.registrations for w in r.register_options["watchers"]]
    assert "**/*.py" in watched and "**/pyproject.toml" in watched
    main_uri = open_file(client, main)
    assert [d.code for d in await diagnostics_of(client, main_uri)] == ["GL501"]
    steps.write_text(steps.read_text().replace("@tf.function\ndef train_step", "def train_step"))
    seen = len(client.published)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(steps.as_uri(), types.FileChangeType.Changed)])
    )
    assert await diagnostics_of(client, main_uri, after=seen) == []


async def test_a_rule_that_raises_is_gl000_for_that_file_only(tmp_path, sample):
    """A rule plugin (an installed distribution's entry point) that fails on one file."""
    env = plugin_env(tmp_path / "plugins", "GL999", """
        if module.path.endswith("boom.py"):
            raise ValueError("no")
    """)
    bad = sample("rules/gl103_bad.py")
    boom = bad.parent / "boom.py"
    shutil.copy(bad, boom)
    async with started(bad.parent, env=env) as client:
        boom_found = await diagnostics_of(client, open_file(client, boom))
        assert sorted(d.code for d in boom_found) == ["GL000", "GL103"]
        (internal,) = [d for d in boom_found if d.code == "GL000"]
        assert "rule GL999 failed" in internal.message and "ValueError: no" in internal.message
        assert [d.code for d in await diagnostics_of(client, open_file(client, bad))] == ["GL103"]
