"""``graphlint server``: a Language Server Protocol server (LSP 3.17) over stdio, on pygls.

Editors get graphlint's static findings as they type: diagnostics for Python files and
notebooks (each cell a text document), quick fixes, "fix all", ``# noqa`` actions and the
rules' documentation on hover. The user's code is parsed, never imported or run: the server
serves the static engine (graphlint.static), kept warm between edits. Needs the ``server``
extra (``pygls``, ``lsprotocol``).

Modules: :mod:`.server` (documents, checks, publishing), :mod:`.features` (the LSP methods),
:mod:`.checker` (the engine in its thread), :mod:`.documents` (a document as bytes for a
path), :mod:`.diagnostics`, :mod:`.actions`, :mod:`.hover`, :mod:`.settings` (client settings,
each file's configuration), :mod:`.lifecycle` (stdio, the process's end).
"""

from __future__ import annotations

import gc
import logging
import sys


class ServerUnavailable(Exception):
    """The server cannot start: what is missing, in one line for the user."""


def serve(log_level: str = "warning") -> int:
    """Serve on stdin/stdout until the client exits or goes away; the exit status."""
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError as exc:
        raise ServerUnavailable(
            f"graphlint server needs pygls and lsprotocol ({exc.name} is not installed): pip install -e '.[server]'"
        ) from None
    logging.basicConfig(stream=sys.stderr, level=log_level.upper(), format="graphlint server: %(levelname)s: %(message)s")
    from graphlint.config import ConfigError
    from graphlint.server.features import register
    from graphlint.server.lifecycle import protocol_streams
    from graphlint.server.server import GraphlintServer

    try:
        server = GraphlintServer()
    except ConfigError as exc:  # no rules installed: one line, as graphlint check says it
        raise ServerUnavailable(str(exc)) from None
    register(server)
    gc.collect()
    gc.freeze()  # the rules, pygls and lsprotocol live as long as the process: never walked again
    stdin, stdout = protocol_streams()
    server.start_io(stdin, stdout)
    return 0 if server.shut_down else 1
