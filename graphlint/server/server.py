"""The language server's state: the documents the editor has open, when each is checked,
and what was published for it.

Checks run in one thread (graphlint.server.checker) while the event loop goes on reading the
client's messages. A change starts a check at once when none of the document runs (after
``lint.debounce`` of quiet, when set); changes that arrive while one runs are folded into one
more check of the latest text when it ends. Only a check of the document's current version is
published. A check that finds the document's buffer changed returns the other files whose
analyses read it: the open ones among them are checked again.
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from graphlint import __version__
from graphlint.config import Config, ConfigError
from graphlint.config_files import NAMES as CONFIG_NAMES
from graphlint.reading import read_regular
from graphlint.registry import describe, discover_rules
from graphlint.server.checker import Checked, Checker
from graphlint.server.diagnostics import diagnostics
from graphlint.server.documents import Snapshot, lines_of, notebook_snapshot, path_of, text_snapshot
from graphlint.server.settings import Configs, Settings
from graphlint.static.engine import FileResult, read_limit

logger = logging.getLogger("graphlint.server")
T = TypeVar("T")

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[types.NotebookDocumentFilterWithCells(cells=[types.NotebookCellLanguage("python")], notebook="*")],
    save=True,
)


#: Seconds with no check ending before the checks' garbage is collected, and the most checks
#: between two collections (graphlint.server.checker.Checker.collect).
COLLECT_AFTER, COLLECT_EVERY = 0.05, 8


@dataclass
class Tracked:
    """A document the editor has open (a notebook: with its cells), as the server follows it."""

    key: str
    path: str
    notebook: bool
    timer: asyncio.TimerHandle | None = None
    running: asyncio.Future | None = None
    again: bool = False  # changed while its check ran
    checked: Checked | None = None  # the last check published
    published: dict[str, list[types.Diagnostic]] = field(default_factory=dict)


class GraphlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "graphlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=NOTEBOOK_SYNC,
        )
        rules = discover_rules(warn=logger.warning)
        self.rules = describe(rules)
        self.checker = Checker(rules)
        self.configs = Configs(rules)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphlint-check")
        self.initial = Settings()  # initializationOptions.settings
        self.settings = Settings()  # and the client's global workspace/configuration over them
        self.folder_settings: dict[str, Settings] = {}
        self.docs: dict[str, Tracked] = {}
        self.ready: asyncio.Event | None = None  # set once the client's settings are in
        self.shut_down = False
        self._said: set[str] = set()
        self._sweep: asyncio.TimerHandle | None = None  # the collection to come
        self._unswept = 0  # checks since the last collection

    # -- settings ------------------------------------------------------------------------------
    def warn(self, message: str) -> None:
        """Say ``message`` once to the user (a configuration that cannot be used)."""
        logger.warning(message)
        if message not in self._said:
            self._said.add(message)
            self.window_show_message(types.ShowMessageParams(types.MessageType.Warning, message))

    def folders(self) -> list[str]:
        found = [path_of(f.uri) for f in self.workspace.folders.values()]
        if not found and self.workspace.root_path:
            found = [os.path.abspath(self.workspace.root_path)]
        return found

    def settings_for(self, path: str) -> tuple[Settings, str | None]:
        """The settings of the workspace folder holding ``path`` (the innermost), and it."""
        inside = [f for f in self.folders() if path == f or path.startswith(f.rstrip(os.sep) + os.sep)]
        folder = max(inside, key=len) if inside else next(iter(self.folders()), None)
        return self.folder_settings.get(folder, self.settings) if folder else self.settings, folder

    async def pull_settings(self) -> None:
        """The client's settings (``workspace/configuration``, section ``graphlint``): the
        global ones, then each workspace folder's."""
        folders = list(self.workspace.folders.values())
        supported = getattr(getattr(self.client_capabilities, "workspace", None), "configuration", False)
        values: list = []
        if supported:
            items = [types.ConfigurationItem(section="graphlint")]
            items += [types.ConfigurationItem(scope_uri=f.uri, section="graphlint") for f in folders]
            try:
                values = list(await self.workspace_configuration_async(types.ConfigurationParams(items)) or [])
            except Exception as exc:  # a client that says it answers, and does not
                logger.warning("graphlint: workspace/configuration failed: %s", exc)
        self.apply_settings(values[0] if values else None, {path_of(f.uri): v for f, v in zip(folders, values[1:])})

    def apply_settings(self, global_raw: object, folder_raw: dict[str, object]) -> None:
        self.settings = self.initial.merged(global_raw, self.warn)
        self.folder_settings = {path: self.settings.merged(raw, self.warn) for path, raw in folder_raw.items()}
        self.settings_ready().set()
        self.recheck_all()

    def configuration_names(self) -> set[str]:
        """The names of the files a configuration is read from: graphlint's own
        (``pyproject.toml``, ``graphlint.toml``, ``.graphlint.toml``), and those the settings
        name (``configuration``)."""
        named = [s.configuration for s in (self.settings, *self.folder_settings.values()) if s.configuration]
        return {*CONFIG_NAMES, *(os.path.basename(n) for n in named)}

    def settings_ready(self) -> asyncio.Event:
        """Set once the client's settings are known: no document is checked before (its
        diagnostics would flash with the defaults first)."""
        if self.ready is None:
            self.ready = asyncio.Event()
        return self.ready

    # -- documents -----------------------------------------------------------------------------
    def track(self, key: str, notebook: bool) -> Tracked:
        path = path_of(key)
        if notebook and not path.endswith(".ipynb"):
            path += ".ipynb"
        self.docs[key] = doc = Tracked(key, path, notebook)
        return doc

    def snapshot(self, doc: Tracked) -> Snapshot:
        if not doc.notebook:
            text = self.workspace.get_text_document(doc.key)
            return text_snapshot(doc.key, text.source, text.version)
        notebook = self.workspace.get_notebook_document(notebook_uri=doc.key)

        def cell(uri: str) -> tuple[str, str, int | None]:
            text = self.workspace.get_text_document(uri)
            return text.source, text.language_id or "python", text.version

        assert notebook is not None, "a tracked notebook is open in the workspace"
        return notebook_snapshot(notebook, cell)

    def version_of(self, doc: Tracked) -> int | None:
        if doc.notebook:
            notebook = self.workspace.get_notebook_document(notebook_uri=doc.key)
            return notebook.version if notebook is not None else None
        return self.workspace.get_text_document(doc.key).version

    def changed(self, key: str, *, typed: bool = True) -> None:
        """The document changed (``typed``: an edit, not an open or a save): check it."""
        doc = self.docs.get(key)
        if doc is None or self.shut_down:
            return
        settings, _ = self.settings_for(doc.path)
        if typed and settings.run == "onSave":
            return
        self.request(doc, settings.debounce if typed else 0)

    def request(self, doc: Tracked, delay: float = 0) -> None:
        if doc.timer is not None:
            doc.timer.cancel()
            doc.timer = None
        if not self.settings_ready().is_set():
            return  # checked when they are (apply_settings)
        if doc.running is not None:
            doc.again = True
        elif delay > 0:
            doc.timer = asyncio.get_running_loop().call_later(delay, self.start, doc)
        else:
            self.start(doc)

    def recheck_all(self) -> None:
        for doc in list(self.docs.values()):
            self.request(doc)

    def start(self, doc: Tracked) -> None:
        doc.timer = None
        if self.docs.get(doc.key) is not doc:
            return
        snapshot = self.snapshot(doc)
        settings, folder = self.settings_for(snapshot.path)
        doc.running = asyncio.get_running_loop().run_in_executor(self.executor, self.work, snapshot, settings, folder)
        doc.running.add_done_callback(partial(self.done, doc))

    def work(
        self, snapshot: Snapshot, settings: Settings, folder: str | None
    ) -> tuple[Checked, set[str], str | None]:
        """In the checker thread: the buffer in place, the configuration, the check."""
        affected = set() if snapshot.notebook else self.checker.holds(snapshot.path, snapshot.data)
        error = None
        try:
            config = self.configs.for_file(snapshot.path, settings, folder)
        except ConfigError as exc:
            error, config = f"graphlint: {exc} (checking with the defaults)", Config(root=folder or os.getcwd())
        if not settings.enable or self.excluded(snapshot.path, config):
            return Checked(snapshot, FileResult(snapshot.path)), affected, error
        return self.checker.check(snapshot, config, syntax_errors=settings.show_syntax_errors), affected, error

    @staticmethod
    def excluded(path: str, config: Config) -> bool:
        """``exclude``/``extend-exclude`` cover the file: an editor shows it nothing, as ruff's
        server does (``graphlint check FILE`` with ``--force-exclude``)."""
        return os.path.isabs(path) and config.excluded(path, False)

    def done(self, doc: Tracked, future: asyncio.Future) -> None:
        if doc.running is future:
            doc.running = None
        if future.cancelled() or self.docs.get(doc.key) is not doc:
            return
        try:
            checked, affected, error = future.result()
        except Exception:
            logger.exception("graphlint: the check of %s failed", doc.key)
            return
        if error:
            self.warn(error)
        if doc.again:
            doc.again = False
            self.request(doc, self.settings_for(doc.path)[0].debounce)
        elif checked.snapshot.version == self.version_of(doc):
            doc.checked = checked
            self.publish(doc, checked)
        self.recheck(affected, but=doc)
        self.collect_soon()

    def collect_soon(self) -> None:
        """Collect the checks' garbage (:meth:`Checker.collect`) once no check has ended for
        :data:`COLLECT_AFTER` seconds, off the latency path; while edits keep coming, after
        :data:`COLLECT_EVERY` checks at the latest (what is left to collect stays bounded)."""
        self._unswept += 1
        if self._sweep is not None:
            self._sweep.cancel()
            self._sweep = None
        if self._unswept >= COLLECT_EVERY:
            self._collect()
        else:
            self._sweep = asyncio.get_running_loop().call_later(COLLECT_AFTER, self._collect)

    def _collect(self) -> None:
        self._sweep, self._unswept = None, 0
        self.job(self.checker.collect)

    def recheck(self, paths: set[str], but: Tracked | None = None) -> None:
        """Check again the open documents among ``paths`` (files whose analyses read a file
        that changed)."""
        for other in list(self.docs.values()):
            if other is not but and other.path in paths:
                self.request(other)

    def publish(self, doc: Tracked, checked: Checked) -> None:
        found = diagnostics(checked, self.workspace.position_codec, self.lines_elsewhere)
        for uri in set(doc.published) - set(found):  # cells gone since
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        snapshot = checked.snapshot
        for uri, items in found.items():
            index = snapshot.index_of_uri(uri)
            version = snapshot.versions[index] if index is not None else None
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, items, version))
        doc.published = found

    def lines_elsewhere(self, path: str) -> list[str] | None:
        """The lines of another file a related site names: its buffer's, or the file's."""
        for doc in self.docs.values():
            if doc.path == path and not doc.notebook:
                return lines_of(self.workspace.get_text_document(doc.key).source)
        try:  # a regular file only, never blocking (graphlint.reading)
            return lines_of(read_regular(path, read_limit(path)).decode("utf-8", "replace"))
        except OSError:
            return None

    def close(self, key: str) -> None:
        doc = self.docs.pop(key, None)
        if doc is None:
            return
        if doc.timer is not None:
            doc.timer.cancel()
        for uri in doc.published:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        if not doc.notebook:
            self.job(partial(self.checker.closed, doc.path), self.recheck)

    def job(self, work: Callable[[], T], then: Callable[[T], object] | None = None) -> None:
        """``work()`` in the checker thread, ``then(its result)`` back on the loop."""
        future = asyncio.get_running_loop().run_in_executor(self.executor, work)

        def finished(f: asyncio.Future) -> None:
            if f.cancelled():
                return
            if f.exception() is not None:
                logger.error("graphlint: %s", f.exception())
            elif then is not None:
                then(f.result())

        future.add_done_callback(finished)

    async def current(self, key: str) -> Checked | None:
        """The check of the document's current version (made now if need be)."""
        await self.settings_ready().wait()
        doc = self.docs.get(key)
        for _ in range(5):  # a document edited all the while: its latest check
            if doc is None or self.docs.get(key) is not doc:
                return None
            if doc.running is None and doc.checked is not None and doc.checked.snapshot.version == self.version_of(doc):
                return doc.checked
            if doc.running is None:
                self.request(doc)
            if doc.running is not None:
                try:
                    await asyncio.shield(doc.running)
                except Exception:  # logged by its done callback
                    pass
                await asyncio.sleep(0)  # its done callback runs first
        return doc.checked if doc is not None else None

    def document_of(self, uri: str) -> str | None:
        """The key of the open document ``uri`` is (a cell: of its notebook)."""
        if uri in self.docs:
            return uri
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None and notebook.uri in self.docs else None
