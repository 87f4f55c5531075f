"""The user's own modules beside a checked file, read only when an analysis follows a call.

``import model`` / ``from .model import Net`` / ``import pkg.util as u`` in a checked file
may name a module that lives in the checked tree. :func:`resolve_call` finds, for one call,
the user's function (or class) it reaches in such a module: the module is parsed (never
imported) the first time it is asked for and kept by the :class:`Project` of the run (one per
``graphlint check`` run and per pool worker, one per editor's workspace in graphlint.server),
which every :class:`Module` it builds knows. Only the modules a call actually leads to are
read; a name that resolves to no file beside the checked one (an installed package such as
``numpy``) costs one ``os.path`` look-up, remembered.

Where a module is looked for: the checked file's directory, and each directory above it
while that directory is a package (has ``__init__.py``) together with the directory holding
the top package — unless that is an installed packages' folder (``site-packages``,
``dist-packages``): what lies beside a package there (``absl``, ``numpy``, ``typing_extensions``
beside ``tensorflow``) is installed code, not the user's. Relative imports start from the
checked file's package.
"""

from __future__ import annotations

import ast
import os
from typing import Iterable, Iterator

from graphlint.reading import read_regular
from graphlint.static.model.module import Module
from graphlint.static.model.scopes import CallSite, ClassInfo, Function, Loop, resets_unconditionally

try:  # the interpreter's own SHA-256: hashlib would load OpenSSL first (~3 ms of a one-file check)
    from _sha256 import sha256  # Python 3.10, 3.11
except ImportError:
    try:
        from _sha2 import sha256  # Python 3.12+
    except ImportError:  # an interpreter built without them
        from hashlib import sha256

#: Modules larger than this are not followed (generated code, vendored libraries).
MAX_BYTES = 1024 * 1024
#: Never followed: TensorFlow, Keras and the usual libraries are not the user's code.
LIBRARIES = frozenset(
    {"tensorflow", "keras", "tf_keras", "numpy", "scipy", "os", "sys", "six", "tensorlayer", "tflearn"}
)

#: Folders of installed packages: never a root of the user's own modules.
_INSTALLED = frozenset({"site-packages", "dist-packages"})
#: The ``level`` under which :meth:`Project.importers` records a module's importer among its
#: look-ups: found by reading the files around it, not by an import from it (no real level).
IMPORTED_BY = -1

#: At most this many folders below a package folder are walked for its modules' importers.
_TREE_FOLDERS = 100


def _py_files(folder: str) -> list[str]:
    """The names of the ``.py`` files directly in ``folder``, sorted (none when unreadable)."""
    try:
        return sorted(e.name for e in os.scandir(folder) if e.name.endswith(".py") and e.is_file())
    except OSError:
        return []


def _tree_files(top: str) -> list[tuple[str, str]]:
    """``(folder, name)`` of the ``.py`` files in ``top`` and below it, breadth first, hidden and installed folders left out, :data:`_TREE_FOLDERS` folders at most."""
    out: list[tuple[str, str]] = []
    queue, walked = [top], 0
    while queue and walked < _TREE_FOLDERS:
        folder = queue.pop(0)
        walked += 1
        try:
            subs = sorted(
                e.path for e in os.scandir(folder)
                if e.is_dir(follow_symlinks=False) and not e.name.startswith((".", "__")) and e.name not in _INSTALLED
            )
        except OSError:
            continue
        out += [(folder, name) for name in _py_files(folder)]
        queue += subs
    return out


#: What a call resolves to in another module of the tree: that module, and the function or class.
Resolved = tuple[Module, "Function | ClassInfo"]


def digest(data: bytes) -> str:
    """A file's bytes as the cache and the engine name them (SHA-256, hex)."""
    return sha256(data).hexdigest()


class Project:
    """What one check run (or one editor's workspace, graphlint.server) knows of the user's
    tree: the modules parsed so far, where each import leads, the editor's buffers that stand
    for their files. The engine makes one per run (each pool worker one of its own) and every
    :class:`Module` it builds knows it (:attr:`Module.project`): the questions below that
    follow an import (:func:`resolve_call`, :func:`loop_starts_fresh`) ask it."""

    #: The last files the engine analysed (:meth:`checked`), kept for :meth:`load` to reuse:
    #: enough for a package's modules that its later files follow (``tf_util.py``,
    #: ``logger.py``) to be found here, not parsed and modelled again. A model's cycles keep
    #: most of it alive after it leaves this list anyway (the engine runs with the collector
    #: paused): at 96 a ``-j1`` corpus run has no more page faults than at 32, and 13 parses
    #: and models fewer (-1.0% of its instructions).
    RECENT = 96

    def __init__(self, *, record: bool = True) -> None:
        #: Whether what the analyses read is recorded for a cache or an editor (each look-up
        #: made, and the digests of the files read: :func:`graphlint.static.cache.reached`). A
        #: run with neither (``check --no-cache``) records nothing, and the analyses may skip
        #: look-ups that can only miss (:func:`reaches_elsewhere`).
        self.record = record
        self._modules: dict[str, Module | None] = {}  # file path -> parsed module (None: unreadable)
        self._found: dict[tuple[str, str], str | None] = {}  # (directory, dotted) -> file path
        self._tops: dict[tuple[str, str], bool] = {}  # (directory, top package) -> a file or folder is there
        #: The engine's models of the files it analysed last, by absolute path, with the digest
        #: of their bytes: a module of the tree found among them is not parsed again.
        self._recent: dict[str, tuple[str | bytes, Module]] = {}
        self._digests: dict[str, str | bytes] = {}  # absolute path -> :meth:`key` of the bytes :meth:`load` parsed
        self._roots_of: dict[str, list[str]] = {}
        self._above: dict[tuple[str, str], str] = {}  # (directory, top package) -> the folder above one so named
        self._looked_up: dict[tuple[str, int, str], Resolved | None] = {}
        #: Editors' buffers (graphlint.server): absolute path -> the bytes that stand for the file's.
        self._sources: dict[str, bytes] = {}
        #: Every look-up :meth:`find_module` made, by the looking file (absolute):
        #: ``{(level, dotted): file or None}``. The cache of results (graphlint.static.cache)
        #: follows it to every file an analysis could have read, and checks that each look-up
        #: still holds.
        self.resolutions: dict[str, dict[tuple[int, str], str | None]] = {}
        #: Who imports whom (:meth:`importers`): a module's file -> the files of the tree that
        #: import it, each with the dotted name it is found by from the module.
        self._importers: dict[str, list[tuple[str, str]]] = {}
        self._trees: dict[str, list[tuple[str, str]]] = {}  # package folder -> its .py files, walked once
        self._reexporting: set[str] = set()  # the modules a look-up is following a re-export through

    # -- files -------------------------------------------------------------------------------
    def load(self, path: str) -> Module | None:
        """The parsed :class:`Module` of ``path``, or None when it cannot be read or parsed."""
        path = os.path.abspath(path)
        if path in self._modules:
            return self._modules[path]
        module = None
        try:
            if path in self._sources or os.path.getsize(path) <= MAX_BYTES:
                data = self._read(path)
                data_digest = self.key(data) if data.isascii() else None
                recent = self._recent.get(path)
                if recent is not None and data_digest is not None and recent[0] == data_digest:
                    module = recent[1].relocated(path)  # the same bytes the engine just analysed
                else:
                    tree = ast.parse(data, filename=path)
                    module = Module(path, data.decode("utf-8", "replace"), tree, self)
                if data_digest is not None:
                    self._digests[path] = data_digest
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError):
            module = None
        self._modules[path] = module
        return module

    def _read(self, path: str) -> bytes:
        """The bytes of the file at ``path``, or of the editor's buffer that stands for it."""
        data = self._sources.get(path)
        if data is None:
            data = read_regular(path, MAX_BYTES)  # never blocks (a FIFO, /proc/kmsg)
        return data

    def key(self, data: bytes) -> str | bytes:
        """What names a file's bytes here (:meth:`loaded`, :meth:`checked`): their digest when
        the project records it, else the bytes themselves (compared, not hashed)."""
        return digest(data) if self.record else data

    def loaded(self, path: str, data_digest: str | bytes) -> Module | None:
        """The model :meth:`load` made of ``path`` from bytes of this :meth:`key` (ASCII:
        decoded as the engine decodes them), or None: the engine then need not parse the file again."""
        path = os.path.abspath(path)
        return self._modules.get(path) if self._digests.get(path) == data_digest else None

    def checked(self, path: str, data_digest: str | bytes, module: Module) -> None:
        """The engine analysed ``module`` (of ASCII bytes of this :meth:`key`): kept among the last
        :data:`RECENT`, for :meth:`load` to reuse when a later file imports it."""
        path = os.path.abspath(path)
        if path not in self._modules:
            self._recent[path] = (data_digest, module)
            if len(self._recent) > self.RECENT:
                del self._recent[next(iter(self._recent))]

    def forget(self) -> None:
        """Drop what was read of the files (the editor's buffers stay)."""
        for memo in (
            self._modules, self._found, self._tops, self._roots_of, self._above, self._looked_up, self.resolutions,
            self._recent, self._digests, self._importers,
        ):
            memo.clear()

    # -- where imports lead ------------------------------------------------------------------
    def _roots(self, path: str) -> list[str]:
        """The directories an absolute import in ``path`` (an absolute path) is looked for in."""
        here = os.path.dirname(path)
        cached = self._roots_of.get(here)
        if cached is not None:
            return cached
        start = here
        roots = [here]
        while os.path.isfile(os.path.join(here, "__init__.py")):
            here = os.path.dirname(here)
            if here in roots or os.path.basename(here) in _INSTALLED:
                break
            roots.append(here)
        self._roots_of[start] = roots
        return roots

    def _file_for(self, directory: str, dotted: str) -> str | None:
        key = (directory, dotted)
        if key not in self._found:
            hit = None
            parts = dotted.split(".")
            if self._top_in(directory, parts[0]):  # (else no file under it: two looks fewer a name)
                base = os.path.join(directory, *parts)
                for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                    if os.path.isfile(candidate):
                        hit = candidate
                        break
            self._found[key] = hit
        return self._found[key]

    def _top_in(self, directory: str, top: str) -> bool:
        """Whether a file ``top.py`` or a folder ``top`` is in ``directory``: else no module
        ``top`` nor ``top.x...`` is found there."""
        key = (directory, top)
        found = self._tops.get(key)
        if found is None:
            base = os.path.join(directory, top)
            found = self._tops[key] = os.path.isdir(base) or os.path.isfile(base + ".py")
        return found

    def _roots_for(self, here: str, top: str) -> list[str]:
        """:meth:`_roots`, and the folder above the nearest folder named ``top`` that holds the
        file ``here``: ``import spinup.utils.logx`` in ``spinup/algos/ddpg/ddpg.py`` of a tree
        without ``__init__.py`` files is the package the file is itself a part of, run from
        the folder above it."""
        roots = self._roots(here)
        key = (os.path.dirname(here), top)
        above = self._above.get(key)
        if above is None:
            above = ""
            folder = os.path.dirname(here)
            while os.path.dirname(folder) != folder:
                if os.path.basename(folder) == top:
                    above = os.path.dirname(folder)
                    break
                folder = os.path.dirname(folder)
            self._above[key] = above
        return [*roots, above] if above and above not in roots else roots

    def top_exists(self, here: str, top: str) -> bool:
        """Whether a file ``top.py`` or a folder ``top`` lies in a folder that an absolute
        import in the file ``here`` (absolute) is looked for in: else no ``import top...``
        there finds a user's module (:meth:`module_file`)."""
        return any(self._top_in(root, top) for root in self._roots_for(here, top))

    def module_file(self, path: str, dotted: str, level: int = 0, here: str | None = None) -> str | None:
        """The file :meth:`find_module` reads for ``import dotted`` in the file ``path``
        (``here``: its absolute path, when known), or None."""
        if not dotted and not level:
            return None
        here = here or os.path.abspath(path)
        if level:
            directory = os.path.dirname(here)
            for _ in range(level - 1):
                directory = os.path.dirname(directory)
            roots = [directory]
        else:
            if dotted.split(".", 1)[0] in LIBRARIES:
                return None
            roots = self._roots_for(here, dotted.split(".", 1)[0])
        for root in roots:
            found = self._file_for(root, dotted) if dotted else self._file_for(root, "__init__")
            if found is not None and os.path.abspath(found) != here:
                return found
        return None

    def find_module(self, module: Module, dotted: str, level: int = 0) -> Module | None:
        """The user's module that ``import dotted`` (``level`` dots for a relative import)
        names from ``module``, when its file lies in the checked tree; else None."""
        here = absolute(module)
        found = self.module_file(module.path, dotted, level, here)
        self.resolutions.setdefault(here, {})[(level, dotted)] = found
        return self.load(found) if found is not None else None

    def lookup(self, module: Module, level: int, dotted: str) -> Resolved | None:
        """The function or class ``dotted`` names (``pkg.mod.func``, ``mod.Class``), found by
        the longest prefix that is a user's module: ``(module, Function | ClassInfo)`` or None."""
        if not level and dotted.partition(".")[0] in LIBRARIES:
            return None  # never a user's module, whatever the tree holds (nothing to record)
        key = (module.path, level, dotted)
        if key not in self._looked_up:
            self._looked_up[key] = self._lookup(module, level, dotted)
        return self._looked_up[key]

    def _lookup(self, module: Module, level: int, dotted: str) -> Resolved | None:
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, -1 if level else 0, -1):
            target = self.find_module(module, ".".join(parts[:cut]), level)
            if target is None:
                continue
            rest = parts[cut:]
            found: Function | ClassInfo | None
            if len(rest) == 1:
                found = target.module_functions.get(rest[0]) or target.classes.get(rest[0])
            elif len(rest) == 2 and rest[0] in target.classes:
                found = target.classes[rest[0]].methods.get(rest[1])
            else:
                found = None
            if found is None and target is not module:
                return self._reexported(target, rest)
            return (target, found) if found is not None else None
        return None

    def _reexported(self, target: Module, rest: list[str]) -> Resolved | None:
        """What ``target`` imports under the name ``rest[0]`` and so re-exports (a package's
        ``__init__.py`` with ``from .prediction.serve_model import predict``), looked up from
        there, ``rest[1:]`` after it; None when it imports no such name (a module that is
        already being looked through: a cycle, none)."""
        name = rest[0]
        relative = _relative_names(target).get(name)
        absolute_name = target.bindings.names.get(name)
        if relative is not None:
            level, base = relative
        elif absolute_name is not None and absolute_name.partition(".")[0] not in LIBRARIES:
            level, base = 0, absolute_name
        else:
            return None
        key = os.path.abspath(target.path)
        if key in self._reexporting:
            return None
        self._reexporting.add(key)
        try:
            return self.lookup(target, level, ".".join([base, *rest[1:]]))
        finally:
            self._reexporting.discard(key)

    # -- who imports whom --------------------------------------------------------------------
    #: At most this many files beside a module are read to find the ones that import it.
    MAX_IMPORTERS_READ = 200

    def importers(self, module: Module) -> list[Module]:
        """The modules of the checked tree that import ``module``: the ``.py`` files in the
        folders its absolute imports are looked for in (:meth:`_roots`: its own folder and the
        package folders above it) with an ``import`` that leads to its file. Each one found is
        recorded among the module's look-ups (:attr:`resolutions`), so that a cached result
        (graphlint.static.cache) and an editor's dependents follow it."""
        here = absolute(module)
        found = self._importers.get(here)
        if found is None:
            found = self._importers[here] = self._find_importers(here)
        looked = self.resolutions.setdefault(here, {})
        out = []
        for path, dotted in found:
            importer = self.load(path)
            if importer is not None:
                looked[(IMPORTED_BY, dotted)] = path
                out.append(importer)
        return out

    def still_found(self, path: str, level: int, dotted: str, hit: str | None) -> bool:
        """Whether a look-up recorded in :attr:`resolutions` from the file ``path`` still finds
        ``hit`` (a cache replays them): :meth:`module_file`'s answer, or for an importer found
        by :meth:`importers` (``level`` :data:`IMPORTED_BY`) its file still there (what it holds
        is the cache's to compare: it is among the files found)."""
        if level == IMPORTED_BY:
            return hit is not None and os.path.isfile(hit)
        return self.module_file(path, dotted, level) == hit

    def _find_importers(self, here: str, depth: int = 0) -> list[tuple[str, str]]:
        name = os.path.splitext(os.path.basename(here))[0]
        if name == "__init__":
            name = os.path.basename(os.path.dirname(here))
        needle = name.encode()
        found: list[tuple[str, str]] = []
        seen: set[str] = {here}
        budget = self.MAX_IMPORTERS_READ
        roots = self._roots(here)
        top = roots[-1]
        if not os.path.isfile(os.path.join(top, "__init__.py")) and os.path.dirname(top) != top:
            # a folder without ``__init__.py`` is a namespace package of the one above it:
            # ``from agent.ddpg import Agent`` in a script beside the folder
            roots = [*roots, os.path.dirname(top)]
        # a file found by the package rule imports the module by a dotted name that spells
        # its folder too (``rl.agents.dqn``, ``from rl.agents import dqn``)
        folder = os.path.basename(os.path.dirname(here)).encode()
        places = [(root, entry, b"") for root in roots for entry in _py_files(root)]
        places += [(*place, folder) for top in self._package_folders(here) for place in self._tree(top)]
        for root, entry, also in places:
            path = os.path.join(root, entry)
            if path in seen or budget <= 0:
                continue
            seen.add(path)
            budget -= 1
            try:
                text = self._read(path)
                if needle not in text or also not in text:
                    continue  # no import of the module can name it
            except (OSError, ValueError):
                continue
            importer = self.load(path)
            if importer is not None and self._imports(importer, here):
                found.append((path, entry[:-3]))
        if depth == 0:
            # a package's ``__init__.py`` that imports the module re-exports it: who imports
            # the package imports the module's names (``from application.components import predict``)
            for path, _ in list(found):
                if os.path.basename(path) == "__init__.py":
                    found += [f for f in self._find_importers(path, 1) if f[0] != here and f not in found]
        return found

    def _tree(self, top: str) -> list[tuple[str, str]]:
        """:func:`_tree_files` of ``top``, walked once per project."""
        found = self._trees.get(top)
        if found is None:
            found = self._trees[top] = _tree_files(top)
        return found

    #: How many folders above a module's own the package it may be part of is looked for in.
    PACKAGE_LEVELS = 2

    def _package_folders(self, here: str) -> list[str]:
        """The folders whose files may import ``here`` by the package rule of
        :meth:`_roots_for` (``from spinup.utils.logx import EpochLogger`` in
        ``spinup/algos/ddpg/ddpg.py`` of a tree without ``__init__.py`` files): the module's own
        folder and the ones above it, :attr:`PACKAGE_LEVELS` at most, nearest first — a file
        anywhere below the folder named by an import's first part can import it."""
        folders = []
        folder = os.path.dirname(here)
        for _ in range(self.PACKAGE_LEVELS + 1):
            if os.path.basename(folder) in _INSTALLED or os.path.dirname(folder) == folder:
                break
            folders.append(folder)
            folder = os.path.dirname(folder)
        return folders

    def _imports(self, importer: Module, here: str) -> bool:
        """Whether one of ``importer``'s imports leads to the file ``here``."""
        for node in ast.walk(importer.tree):
            targets: list[tuple[int, str]] = []
            if isinstance(node, ast.Import):
                targets = [(0, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                targets = [(node.level, base)] if base else []
                targets += [(node.level, f"{base}.{a.name}" if base else a.name) for a in node.names if a.name != "*"]
            for level, dotted in targets:
                found = self.module_file(importer.path, dotted, level)
                if found is not None and os.path.abspath(found) == here:
                    return True
        return False

    # -- changes (graphlint.server) ----------------------------------------------------------
    def set_source(self, path: str, data: bytes | None) -> set[str]:
        """From now on ``data`` stands for the file at ``path`` (an editor's unsaved buffer),
        or the file itself does again (None). Returns what :meth:`changed` returns."""
        path = os.path.abspath(path)
        if data is None:
            self._sources.pop(path, None)
        else:
            self._sources[path] = data
        return self.changed([path])

    def sources(self) -> list[str]:
        """The files an editor's buffer stands for (:meth:`set_source`)."""
        return list(self._sources)

    def changed(self, paths: Iterable[str], *, appeared: bool = False) -> set[str]:
        """The files ``paths`` changed (on disk or in an editor), in a process that keeps what
        it read (graphlint.server): their models are dropped, those of the modules whose
        analyses followed imports to them made afresh from the same parse (their memos hold
        what the old models answered), and every look-up of a function is made again.
        ``appeared``: files appeared or went, so an import may now lead elsewhere. Returns
        those dependent files."""
        paths = {os.path.abspath(p) for p in paths}
        if appeared:
            self._found.clear()
            self._tops.clear()
            self._roots_of.clear()
            self._trees.clear()
        affected = self.dependents(paths)
        for path in paths:
            self._modules.pop(path, None)
            self._digests.pop(path, None)
            self._recent.pop(path, None)
            self.resolutions.pop(path, None)
        for path in affected:
            module = self._modules.get(path)
            if module is not None:
                self._modules[path] = module.relocated(path)
        self._looked_up.clear()
        self._importers.clear()
        return affected

    def dependents(self, paths: set[str]) -> set[str]:
        """The files whose look-ups (:attr:`resolutions`) led to one of ``paths`` (absolute),
        directly or through other modules."""
        users: dict[str, set[str]] = {}
        for here, found in self.resolutions.items():
            for hit in found.values():
                if hit is not None:
                    users.setdefault(os.path.abspath(hit), set()).add(here)
        out: set[str] = set()
        stack = list(paths)
        while stack:
            for user in users.get(stack.pop(), ()):
                if user not in out and user not in paths:
                    out.add(user)
                    stack.append(user)
        return out


def absolute(module: Module) -> str:
    """The absolute path of a module's file, computed once per model."""
    here = module.__dict__.get("_absolute")
    if here is None:
        here = module.__dict__["_absolute"] = os.path.abspath(module.path)
    return here


def _relative_names(module: Module) -> dict[str, tuple[int, str]]:
    """``from .pkg import name`` bindings: local name -> (level, dotted target). The top
    level's first; then those of imports inside functions (a lazy ``from .models import
    registry`` in a loader), as absolute imports are taken wherever they are
    (:class:`Bindings`), for the names the top level does not bind itself."""
    cached = module.cache.get("relative-imports")
    if cached is None:
        cached = {}
        for node in module.tree.body:
            if isinstance(node, ast.ImportFrom) and node.level:
                for alias in node.names:
                    if alias.name != "*":
                        target = f"{node.module}.{alias.name}" if node.module else alias.name
                        cached[alias.asname or alias.name] = (node.level, target)
        nested = module.bindings.relative
        if len(nested) > len(cached):
            top = _top_stores(module)
            for name, found in nested.items():
                if name not in cached and name not in top:
                    cached[name] = found
        module.cache["relative-imports"] = cached
    return cached


def _star_imports(module: Module) -> list[tuple[int, str]]:
    """``(level, dotted)`` of the module's top-level ``from X import *``, last first (the
    last one binds a name both give), libraries left out. Once per module."""
    cached = module.cache.get("star-imports")
    if cached is None:
        cached = [
            (node.level, node.module or "")
            for node in reversed(module.tree.body)
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
            and (node.level or (node.module and node.module.partition(".")[0] not in LIBRARIES))
        ]
        module.cache["star-imports"] = cached
    return cached


def resolve_class(module: Module, expr: ast.expr) -> Resolved | None:
    """The class ``expr`` names (``Net``, ``models.Net``): one of the file's own, or of another
    module of the tree through an import; else None."""
    if isinstance(expr, ast.Name) and expr.id in module.classes and expr.id in _top_stores(module):
        return module, module.classes[expr.id]
    named = _dotted_of(module, expr)
    found = module.project.lookup(module, *named) if named is not None else None
    return found if found is not None and isinstance(found[1], ClassInfo) else None


def resolve_reference(module: Module, expr: ast.expr) -> Resolved | None:
    """The function or class ``expr`` names without calling it (``fcn.fcn_8`` in
    ``registry["fcn_8"] = fcn.fcn_8``): one the file defines at its top, or one of another
    module of the tree through an import; else None."""
    if isinstance(expr, ast.Name) and expr.id in _top_stores(module):
        own = module.module_functions.get(expr.id) or module.classes.get(expr.id)
        if own is not None:
            return module, own
    named = _dotted_of(module, expr)
    return module.project.lookup(module, *named) if named is not None else None


def resolve_global(module: Module, expr: ast.expr) -> tuple[Module, str] | None:
    """The module of the tree and the top-level name there that ``expr`` names through an
    import (``from nets import model``, ``nets.model``, a ``from nets import *``): a value the
    other module binds at its top, not one of its functions or classes; else None."""
    named = _dotted_of(module, expr, values=True)
    if named is None:
        return None
    level, dotted = named
    head, _, name = dotted.rpartition(".")
    if not name or (not level and (head or name).partition(".")[0] in LIBRARIES):
        return None
    target = module.project.find_module(module, head, level) if head or level else None
    if target is None or name not in _top_stores(target):
        return None
    if name in target.module_functions or name in target.classes:
        return None
    return target, name


def _star_name(module: Module, name: str, values: bool = False) -> tuple[int, str] | None:
    """``(level, dotted)`` of the function or class ``name`` that a ``from X import *`` of a
    module of the tree binds in ``module`` (``from model import *`` then ``unet()``), by the
    names that module defines at its top and its ``__all__`` (any value it binds there too,
    with ``values``); None when none does, or when ``module`` binds the name itself."""
    stars = _star_imports(module)
    if not stars or name in _top_stores(module):
        return None
    for level, dotted in stars:
        target = module.project.find_module(module, dotted, level)
        if target is None:
            continue
        if name in target.module_functions or name in target.classes or (values and name in _top_stores(target)):
            exported = _all_names(target)
            if exported is None or name in exported:
                return level, f"{dotted}.{name}" if dotted else name
    return None


def _top_stores(module: Module) -> set[str]:
    """The names the module's top level binds itself (assignments, ``def``, ``class``, imports)."""
    cached = module.cache.get("top-stores")
    if cached is None:
        cached = set()
        for node in module.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                cached.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                cached.update((a.asname or a.name).partition(".")[0] for a in node.names if a.name != "*")
            else:
                cached.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        module.cache["top-stores"] = cached
    return cached


def _all_names(module: Module) -> set[str] | None:
    """The module's ``__all__`` when it is a literal list or tuple of strings, else None."""
    for node in module.tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            if isinstance(node.value, (ast.List, ast.Tuple)):
                return {e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            return None
    return None


def _dotted_of(module: Module, expr: ast.expr, values: bool = False) -> tuple[int, str] | None:
    """``(level, dotted)`` an expression names through the module's imports, or None
    (``values``: a name a star import binds may be any value, not only a function or class)."""
    attrs = []
    while isinstance(expr, ast.Attribute):
        attrs.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    relative = _relative_names(module).get(expr.id)
    base: str | None
    if relative is not None:
        level, base = relative
    else:
        level, base = 0, module.bindings.names.get(expr.id)
        if base is None:
            star = _star_name(module, expr.id, values)
            if star is None:
                return None  # not an imported name: no string is built
            level, base = star
    if attrs:
        attrs.reverse()
        return level, base + "." + ".".join(attrs)
    return level, base


def reaches_elsewhere(module: Module) -> bool:
    """Whether a call of ``module`` may lead to another module of the tree: False only when
    :func:`resolve_call` can find nothing but the file's own functions, so that an analysis
    may skip what it asks only of other modules. Every module :meth:`Project.lookup` is asked
    for is named from a relative import (``from .x import f``) or from a name an import binds
    (an alias of one names the same module): its dotted name starts with the top package of
    an import (a canonical TensorFlow or Keras name starts with a library's, never followed),
    and it is found only where that top is a file (``top.py``) or a folder in a folder imports
    are looked for in (:meth:`Project._roots`). So a module that has no relative import and
    none of whose imports' tops is there reaches no other. In a project that records its
    look-ups (a cache's or an editor's), always True: each look-up a call asks for is made
    and recorded as before (a folder that appears later can change its answer)."""
    project = module.project
    if project.record:
        return True
    found = module.cache.get("reaches-elsewhere")
    if found is None:
        tops = {dotted.partition(".")[0] for dotted in module.bindings.names.values()} - LIBRARIES
        tops |= {dotted.partition(".")[0] for level, dotted in _star_imports(module) if not level}
        relative = bool(_relative_names(module)) or any(level for level, _ in _star_imports(module))
        found = relative or any(project.top_exists(absolute(module), top) for top in tops)
        module.cache["reaches-elsewhere"] = found
    return found


def resolve_call(module: Module, site: CallSite) -> Resolved | None:
    """The user's function, method or class a call in ``module`` reaches in another module of
    the checked tree: ``f()`` / ``mod.f()`` / ``Class()`` imported from it, or ``obj.method()``
    on an object made by such a class in this file. None when it leads elsewhere."""
    node = site.node
    if not isinstance(node, ast.Call) or site.target is not None:
        return None
    if site.name is not None and site.name.startswith(("tensorflow", "keras")):
        return None
    func = node.func
    if (
        type(func) is ast.Name and func.id not in module.bindings.names and func.id not in _relative_names(module)
        and not _star_imports(module)
    ):
        return None  # a builtin, or a name of this file: no import leads elsewhere
    memo: dict[int, Resolved | None] | None = module.cache.get("resolved-calls")
    if memo is None:
        memo = module.cache["resolved-calls"] = {}
    key = id(node)
    if key not in memo:
        memo[key] = _resolve_call(module, site, func)
    return memo[key]


def _resolve_call(module: Module, site: CallSite, func: ast.expr) -> Resolved | None:
    named = _dotted_of(module, func)
    if named is not None:
        return module.project.lookup(module, *named)
    if isinstance(func, ast.Attribute):
        labels = module.origins(func.value, site.scope)
        if len(labels) == 1:
            (label,) = labels
            if label.startswith("class:"):  # ``self.net.step()`` with ``self.net = Net()``
                cls = module.classes.get(label[6:])
                return _inherited_method(module, cls, func.attr) if cls is not None else None
            if label != "?" and not label.startswith(("tensorflow", "keras")):
                found = module.project.lookup(module, 0, label)
                if found is not None and isinstance(found[1], ClassInfo):
                    return _inherited_method(found[0], found[1], func.attr)
    return None


def _inherited_method(module: Module, cls: ClassInfo, name: str) -> Resolved | None:
    """What ``obj.name(...)`` runs on an object of ``cls`` (a class of ``module``): its own
    method, else that of its first base class that has one, when the bases up to it are classes
    of the same module (``EpochLogger`` deriving from ``Logger``, which defines ``save_state``);
    None when they do not say."""
    for own in lineage(module, cls, elsewhere_stops=True, depth=4):
        method = own.method(name)
        if method is not None:
            return module, method
    return None


def lineage(module: Module, cls: ClassInfo, *, elsewhere_stops: bool = False, depth: int | None = None,
            _path: tuple[int, ...] = ()) -> Iterator[ClassInfo]:
    """``cls`` and its base classes of ``module`` (``class B(A)``, both in the file), depth
    first in the order the bases are written: where a method is first looked for. A base that
    is no class of the file (``tf.keras.Model``, an import) or that is the class itself (``class
    A(A)``, a redefinition) is passed over; with ``elsewhere_stops`` it ends the look at that
    class's further bases instead (a base of elsewhere may define the method first), ``object``
    is passed over, and ``depth`` levels of bases at the most are looked at; else a class met
    again on the way (a loop of redefinitions) is passed over."""
    yield cls
    if depth == 0:
        return
    path = _path + (id(cls),)
    for node in cls.node.bases:
        if elsewhere_stops and isinstance(node, ast.Name) and node.id == "object":
            continue
        parent = module.classes.get(node.id) if isinstance(node, ast.Name) else None
        if parent is None or parent is cls:
            if elsewhere_stops:
                return
            continue
        if not elsewhere_stops and id(parent) in path:
            continue
        yield from lineage(module, parent, elsewhere_stops=elsewhere_stops, depth=None if depth is None else depth - 1, _path=path)


def resolve_function(module: Module, site: CallSite) -> tuple[Module, Function] | None:
    """Like :func:`resolve_call`, also in the same file; a class resolves to its ``__call__``-less
    construction (None). Returns the function a call runs: ``(module, Function)``."""
    if site.target is not None:
        return module, site.target
    found = resolve_call(module, site)
    if found is not None and isinstance(found[1], Function):
        return found[0], found[1]
    return None


def loop_starts_fresh(module: Module, loop: Loop) -> bool:
    """Whether each pass of ``loop`` starts from a fresh graph (or Keras state): itself
    (:meth:`~graphlint.static.model.scopes.Loop.resets_state`, helpers of the file included), or
    through a function or class of another module of the checked tree that does on its straight
    path (``utils.reset_graph()``, a model class whose ``__init__`` resets the default graph)."""
    if loop.resets_state():
        return True
    memo: dict[int, bool] | None = module.cache.get("fresh-loops")
    if memo is None:
        memo = module.cache["fresh-loops"] = {}
    key = id(loop.node)
    if key not in memo:
        memo[key] = any(_fresh_elsewhere(module, call) for call in loop.calls)
    return memo[key]


def _fresh_elsewhere(module: Module, call: CallSite) -> bool:
    if call.entered or call.target is not None or call.local_class is not None:
        return False
    found = resolve_call(module, call)
    if found is None:
        return False
    target = found[1]
    fn = target.methods.get("__init__") if isinstance(target, ClassInfo) else target
    return isinstance(fn, Function) and resets_unconditionally(fn)
