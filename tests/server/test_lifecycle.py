"""The server's process: it ends when the client says so, when the client goes away without a
word, and when the client's process is gone; it answers what it does not know, lets a
request be cancelled, keeps the protocol's stdout to itself, and never imports TensorFlow."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound, JsonRpcRequestCancelled

from lsp_helpers import ROOT, SAMPLES, TIMEOUT, diagnostics_of, initialize, open_file, plugin_env, server_config, started

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def exited(client) -> int:
    """The server's exit status, once it ended (a hang guard only)."""
    return await asyncio.wait_for(client._server.wait(), TIMEOUT)


def gone(pid: int) -> bool:
    return not os.path.exists(f"/proc/{pid}") if os.path.isdir("/proc") else True


async def test_shutdown_then_exit_ends_the_process_with_status_0(tmp_path):
    client = await server_config().start()
    await initialize(client, tmp_path)
    await client.shutdown_async(None)
    client.exit(None)
    assert await exited(client) == 0
    assert gone(client._server.pid)
    await client.stop()


async def test_exit_without_shutdown_ends_the_process_with_status_1(tmp_path):
    client = await server_config().start()
    await initialize(client, tmp_path)
    client.exit(None)
    assert await exited(client) == 1
    await client.stop()


async def test_a_client_that_closes_the_pipe_without_a_word_leaves_no_process(tmp_path):
    client = await server_config().start()
    await initialize(client, tmp_path)
    open_file(client, SAMPLES / "rules" / "gl103_bad.py")
    client._server.stdin.close()
    assert await exited(client) == 1
    assert gone(client._server.pid)
    await client.stop()


async def test_the_server_ends_when_the_clients_process_is_gone(tmp_path):
    """The pipe stays open (held by this test): only LSP's ``processId`` says the client died."""
    editor = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    client = await server_config().start()
    try:
        await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=editor.pid))
        editor.kill()
        editor.wait(TIMEOUT)
        assert await exited(client) == 1
    finally:
        editor.kill()
        if client._server.returncode is None:
            client._server.kill()
        await client.stop()


async def test_unknown_methods_are_answered_and_the_server_goes_on(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text((SAMPLES / "rules" / "gl103_bad.py").read_text())
    async with started(tmp_path) as client:
        with pytest.raises(JsonRpcMethodNotFound):
            await asyncio.wait_for(client.protocol.send_request_async("graphlint/noSuchMethod", {}), TIMEOUT)
        client.protocol.notify("graphlint/noSuchNotification", {})
        assert [d.code for d in await diagnostics_of(client, open_file(client, path))] == ["GL103"]


async def test_a_cancelled_request_is_answered_as_cancelled_and_its_check_goes_on(tmp_path):
    """A hover waits for the check of its file, which a plugin holds until the test lets it
    go: cancelled meanwhile, the hover is answered "cancelled"; the check is published all
    the same, and the next hover is answered."""
    gate = tmp_path / "open-the-gate"
    env = plugin_env(tmp_path / "plugins", "GL997", f"""
        while module.path.endswith("held.py") and not os.path.exists({str(gate)!r}):
            time.sleep(0.005)
    """)
    path = tmp_path / "held.py"
    path.write_text((SAMPLES / "rules" / "gl103_bad.py").read_text())
    async with started(tmp_path, env=env) as client:
        uri = open_file(client, path)
        params = types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(14, 6))
        pending = client.protocol.send_request(types.TEXT_DOCUMENT_HOVER, params, msg_id="hover-to-cancel")
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="hover-to-cancel"))
        with pytest.raises(JsonRpcRequestCancelled):
            await asyncio.wait_for(asyncio.wrap_future(pending), TIMEOUT)
        gate.touch()
        assert [d.code for d in await diagnostics_of(client, uri)] == ["GL103"]
        answered = await asyncio.wait_for(client.text_document_hover_async(params), TIMEOUT)
        assert answered.contents.value.startswith("# GL103 ")


async def test_what_a_plugin_prints_goes_to_stderr_not_into_the_protocol(tmp_path, capfd):
    env = plugin_env(tmp_path / "plugins", "GL998", """
        print("Content-Length: 5\\r\\n\\r\\nhello from a plugin", flush=True)
        os.write(1, b"and from its fd 1\\n")
    """)
    path = tmp_path / "bad.py"
    path.write_text((SAMPLES / "rules" / "gl103_bad.py").read_text())
    async with started(tmp_path, env=env) as client:
        assert [d.code for d in await diagnostics_of(client, open_file(client, path))] == ["GL103"]
        assert client.error is None
    err = capfd.readouterr().err
    assert "hello from a plugin" in err and "and from its fd 1" in err


async def test_the_server_never_imports_tensorflow():
    """The server's whole path (its modules, a check of a TF sample, the diagnostics) in a
    fresh Python: nothing imports a framework."""
    program = textwrap.dedent(
        f"""
        import sys
        from pygls.workspace.position_codec import PositionCodec
        import graphlint.server.features
        from graphlint.config import Config
        from graphlint.registry import discover_rules
        from graphlint.server.checker import Checker
        from graphlint.server.diagnostics import diagnostics
        from graphlint.server.documents import text_snapshot
        path = {str(SAMPLES / "rules" / "gl103_bad.py")!r}
        checked = Checker(discover_rules()).check(text_snapshot("file://" + path, open(path).read(), 1), Config())
        assert [d.code for d in diagnostics(checked, PositionCodec(), lambda p: None)["file://" + path]] == ["GL103"]
        print(sorted(m for m in ("tensorflow", "keras", "jax", "torch") if m in sys.modules))
        """
    )
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


async def test_without_the_server_extra_graphlint_server_says_so_in_one_line():
    """pygls absent (as without ``pip install '.[server]'``): one line, exit status 2."""
    program = "import sys; sys.modules['pygls'] = None; sys.argv = ['graphlint', 'server']; from graphlint.cli import console; console()"
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.splitlines() == [
        "graphlint: error: graphlint server needs pygls and lsprotocol (pygls is not installed): pip install -e '.[server]'"
    ]
