"""Results of unchanged files, kept between runs of ``graphlint check`` (as ``.ruff_cache``).

``.graphlint_cache/`` in the configuration's folder (the one holding ``pyproject.toml``, else
the current folder; ``GRAPHLINT_CACHE_DIR`` names another) holds one JSON file per *context*: graphlint's version and own source
files, the rules (and their modules' files, for plugins), the configuration, the Python
version and the current folder (findings name paths as they were given). In it, each checked
path maps to the SHA-256 of the bytes that were analysed, its findings, and what the analysis
could read besides the file: the modules of the checked tree its imports resolve to, with
their digests, and every place an import was looked for (a module that appears there later
changes the result). A file is taken from the cache only when all of that is unchanged.

The cache never fails a run: a cache that cannot be read (corrupt, another format, a
read-only or missing folder) is a cache with nothing in it, and one that cannot be written
is left as it was. ``graphlint check --no-cache`` neither reads nor writes it. Results with
fixes (``--fix``) are never stored, so a fix is always computed from the file itself.
JSON, not pickle: a cache folder checked into a repository must not run code.

The cache never touches what is not its own. A ``.gitignore`` (``*``) goes only into a cache
folder graphlint created (``GRAPHLINT_CACHE_DIR=.`` must not hide the project from git and
from the walk); a link inside the cache (``.graphlint_cache/2`` -> a folder of the user's) is
never followed; and each context file begins with :data:`MARK`: a file without it is never
read, rewritten or pruned.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import sys
from typing import TYPE_CHECKING

from graphlint.findings import Finding, finding_from_dict, finding_to_dict, well_formed
from graphlint.reading import FileTooLarge, read_head, read_regular
from graphlint.static.model.project import Project, sha256

if TYPE_CHECKING:
    from collections.abc import Collection

    from graphlint.static.hits import StaticRule

#: From this size on a file's SHA-256 is taken with OpenSSL's (``hashlib``: ~4x faster here
#: than the interpreter's own, whose import costs nothing, which a one-file check keeps).
LARGE = 64 * 1024
_openssl_sha256 = None


def digest(data: bytes) -> str:
    """The engine's digest of a file's bytes: SHA-256, hex (:func:`graphlint.static.model.project.digest`)."""
    global _openssl_sha256
    if len(data) < LARGE:
        return sha256(data).hexdigest()
    if _openssl_sha256 is None:
        import hashlib

        _openssl_sha256 = hashlib.sha256
    return _openssl_sha256(data).hexdigest()

DIRECTORY = ".graphlint_cache"
#: Another folder for the cache (CI, a read-only checkout), as ``RUFF_CACHE_DIR`` for ruff.
DIRECTORY_ENV = "GRAPHLINT_CACHE_DIR"
#: The layout of the context files, and the name of the folder that holds them. 2: marked.
FORMAT = 2
#: How every context file graphlint writes begins: a file without it is none of its own, and
#: is never read, rewritten or pruned.
MARK = b'{"graphlint":"cache","format":%d,' % FORMAT
#: The name of a context file: the context's key (:func:`context_key`), ``.json``.
OWN_NAME = re.compile(r"[0-9a-f]{24}\.json")
#: The name of the temporary file a context file is written to (:func:`write_beside`,
#: ``tempfile``'s random part): one left behind by a writer that was killed.
TEMP_NAME = re.compile(r"\.[0-9a-f]{24}\.json\.[a-z0-9_]{8}\.tmp")
#: A temporary file this old is a killed writer's, never one still being written: removed
#: when the cache is saved (``graphlint clean`` removes them all).
STALE_TEMP_SECONDS = 3600
#: A run over at least this many files drops the entries of files that no longer exist.
PRUNE_MIN_FILES = 64
#: Contexts kept (other selections, other versions); the least recently written go first.
KEEP = 8
#: A context's file is read up to this size, and written up to it: a save keeps the entries
#: that fit, the run's own files' first (:func:`_within`). One of graphlint's that is larger (an
#: older graphlint's) is read as empty and rewritten; one of another's is left alone.
MAX_CACHE_BYTES = 256 * 1024 * 1024


class Inputs:
    """What one file's result was computed from, besides the context: the file's bytes
    (``digest``), the look-ups of user modules (``probes``: file, level, dotted, hit) and the
    files they found (``deps``)."""

    digest: str
    probes: list
    deps: list

    def __init__(self, digest: str, probes: list | None = None, deps: list | None = None) -> None:
        self.digest = digest
        self.probes = [] if probes is None else probes
        self.deps = [] if deps is None else deps


def reached(project: Project, path: str) -> tuple[list, list]:
    """Every look-up made from ``path`` and, transitively, from the modules it found, in
    ``project`` (:attr:`~graphlint.static.model.project.Project.resolutions`): a superset of
    what its analysis read."""
    start = os.path.abspath(path)
    seen, stack, probes, deps = {start}, [start], [], []
    while stack:
        here = stack.pop()
        for (level, dotted), hit in project.resolutions.get(here, {}).items():
            probes.append((here, level, dotted, hit))
            if hit is not None:
                hit = os.path.abspath(hit)
                if hit not in seen:
                    seen.add(hit)
                    deps.append(hit)
                    stack.append(hit)
    return probes, deps


def _file_digest(path: str, memo: dict[str, str | None]) -> str | None:
    if path not in memo:
        from graphlint.static.engine import read_limit  # the most the engine reads

        try:
            memo[path] = digest(read_regular(path, read_limit(path)))
        except OSError:  # also a FIFO, a device, a file too large: not a hit
            memo[path] = None
    return memo[path]


def _stat_key(path: str) -> list:
    try:
        st = os.stat(path)
        return [path, st.st_mtime_ns, st.st_size]
    except OSError:
        return [path, None]


@functools.cache
def _own_files() -> list:
    """graphlint's own source files (name, mtime, size) as they were when this process first
    opened a cache, right after it imported graphlint: the code that runs is the code that was
    imported, whatever happens to the files later. Not at import: ``--no-cache`` stats none."""
    import graphlint

    package = os.path.dirname(os.path.abspath(graphlint.__file__))
    own = []
    for directory, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        own += [_stat_key(os.path.join(directory, n)) for n in sorted(names) if n.endswith(".py")]
    return own


def _code_fingerprint(rules: list[type[StaticRule]]) -> list:
    """graphlint's version and own source files, each rule's module file, by name, mtime and
    size: an edited rule, or a plugin upgraded in place, is another context."""
    import graphlint

    plugins = []
    for cls in rules:
        module = sys.modules.get(cls.__module__)
        path = getattr(module, "__file__", None)
        plugins.append([cls.code, cls.__module__, cls.__qualname__, _stat_key(path) if path else None])
    return [graphlint.__version__, _own_files(), plugins]


def context_key(rules: list[type[StaticRule]], config) -> str:
    import json

    context = {
        "format": FORMAT,
        "python": list(sys.version_info[:2]),
        "code": _code_fingerprint(rules),
        "config": [
            config.select, config.extend_select, config.ignore, config.per_file_ignores,
            config.rule_options, config.root,
        ],
        "cwd": os.getcwd(),
    }
    text = json.dumps(context, sort_keys=True, default=repr)
    return sha256(text.encode()).hexdigest()[:24]


class Cache:
    """One context's entries: ``path -> {digest, findings, deps, probes}``."""

    def __init__(self, file: str | None, entries: dict, in_use: set[str] | None = None):
        self.file = file
        self.entries = entries
        self.changed = False
        self._digests: dict[str, str | None] = {}  # every file's digest, read once per run
        self._run: set[str] = set()  # the paths this run checked: kept first when not all fit
        #: the context files of the run this cache is part of (never pruned by it)
        self.in_use: set[str] = set() if in_use is None else in_use
        if file is not None:
            self.in_use.add(os.path.abspath(file))

    @classmethod
    def open(cls, root: str, rules: list[type[StaticRule]], config, folder: str | None = None,
             in_use: set[str] | None = None) -> "Cache":
        """The cache of ``root`` (a project's folder), in ``folder`` when the caller decided
        where it goes (graphlint.cache_dir: ``--cache-dir``, ``cache-dir``). ``in_use``: the
        context files the run opened so far, one set for the run (each configuration of a
        run opens its own context): a save prunes none of them."""
        import json

        try:
            key = context_key(rules, config)
        except Exception:  # nothing about the cache may fail the run
            return cls(None, {}, in_use)
        folder = folder or os.environ.get(DIRECTORY_ENV) or os.path.join(root, DIRECTORY)
        file = os.path.join(folder, str(FORMAT), key + ".json")
        if _link_or_other(os.path.dirname(file)):  # a link out of the cache is never followed
            return cls(None, {}, in_use)
        try:
            raw = read_regular(file, MAX_CACHE_BYTES, follow=False)
        except FileNotFoundError:
            return cls(file, {}, in_use)
        except FileTooLarge:  # of graphlint's (an older one's, unbounded): rewritten within the limit
            return cls(None if _link_or_other(file, file=True) else file, {}, in_use)
        except OSError:  # a link, a FIFO, a folder in its place: not a file of ours, left alone
            return cls(None, {}, in_use)
        if not raw.startswith(MARK):  # written by someone else: neither read nor rewritten
            return cls(None, {}, in_use)
        try:
            entries = json.loads(raw)["entries"]
            if not isinstance(entries, dict):
                entries = {}
        except Exception:  # not JSON, too deeply nested, another shape
            entries = {}
        return cls(file, entries, in_use)

    def check(self, paths: list[str], run, result, progress=None, project: Project | None = None) -> list:
        """Each path's result: from the cache when unchanged, else from ``run(paths)`` (and
        stored). ``result(path, findings)`` makes a result of the cached findings. Imports
        are looked up in ``project`` (the run's), by default one of the cache's own."""
        kept = {}
        project = project or Project()
        self._run.update(paths)
        for path in paths:
            found = self.get(path, project)
            if found is not None:
                kept[path] = result(path, found)
        if kept and progress:
            progress(len(kept))
        for fresh in run([p for p in paths if p not in kept]):
            self.put(fresh)
            kept[fresh.path] = fresh
        if len(paths) >= PRUNE_MIN_FILES:  # a tree's run: forget files that are gone
            for gone in [p for p in self.entries if p not in kept and not os.path.exists(p)]:
                del self.entries[gone]
                self.changed = True
        self.save()
        return [kept[path] for path in paths]

    def get(self, path: str, project: Project | None = None) -> list[Finding] | None:
        """The findings stored for ``path`` when the file and everything its analysis read
        are unchanged; else None. Imports are looked up in ``project`` (by default, a new one)."""
        still_found = (project or Project()).still_found
        entry = self.entries.get(path)
        if not isinstance(entry, dict):
            return None
        try:
            if _file_digest(path, self._digests) != entry["digest"]:
                return None
            for here, level, dotted, hit in entry["probes"]:
                if not still_found(here, level, dotted, hit):
                    return None
            for dep, dep_digest in entry["deps"]:
                if _file_digest(dep, self._digests) != dep_digest:
                    return None
            findings = [finding_from_dict(d) for d in entry["findings"]]
            return findings if all(map(well_formed, findings)) else None
        except Exception:  # an entry of another shape: not a hit
            return None

    def put(self, result) -> None:
        """Store a file's result (not one with fixes, nor one whose inputs were not read)."""
        import json

        if result.edits or result.read is None:
            self.entries.pop(result.path, None)
            return
        try:
            deps = []
            for dep in result.read.deps:
                dep_digest = _file_digest(dep, self._digests)
                if dep_digest is None:
                    raise ValueError(dep)
                deps.append([dep, dep_digest])
            entry = {
                "digest": result.read.digest,
                "findings": [finding_to_dict(f) for f in result.findings],
                "deps": deps,
                "probes": [list(p) for p in result.read.probes],
            }
            json.dumps(entry)  # every value JSON (a rule's `extra` may hold anything)
        except (TypeError, ValueError):
            self.entries.pop(result.path, None)
            return
        self.entries[result.path] = entry
        self.changed = True

    def save(self) -> None:
        import json

        if self.file is None or not self.changed:
            return
        try:
            folder = os.path.dirname(self.file)
            top = os.path.dirname(folder)
            if not _writable(folder if os.path.isdir(folder) else top if os.path.isdir(top) else os.path.dirname(top)):
                return
            if not os.path.isdir(top):
                os.makedirs(top)
                # a folder graphlint made is its own, and git is told so (as pytest and mypy do):
                # a folder it did not make (GRAPHLINT_CACHE_DIR=.) never gets a .gitignore
                with open(os.path.join(top, ".gitignore"), "x", encoding="utf-8") as fh:
                    fh.write("# Automatically created by graphlint.\n*\n")
            if not os.path.lexists(folder):
                os.mkdir(folder)
            if _link_or_other(folder) or _link_or_other(self.file, file=True):
                return  # a link out of the cache, or something else in its place
            mask = os.umask(0)
            os.umask(mask)
            text = json.dumps({"graphlint": "cache", "format": FORMAT, "entries": self.entries}, separators=(",", ":"))
            if len(text) > MAX_CACHE_BYTES:  # (ASCII: as many bytes as characters)
                text = _within(self.entries, self._run, MAX_CACHE_BYTES)
            write_beside(self.file, text.encode("utf-8"), 0o666 & ~mask)  # as any file the user writes
            _prune(folder, self.in_use)
        except Exception:
            pass  # a read-only tree, a full disk: the run's results stand, uncached


def _within(entries: dict, first: Collection[str], limit: int) -> str:
    """A context file's text of at most ``limit`` bytes: as many of ``entries`` as fit, those
    of ``first`` (the run's own files) before the others, each group in its order."""
    import json

    head = json.dumps({"graphlint": "cache", "format": FORMAT, "entries": {}}, separators=(",", ":"))[:-2]  # ... "entries":{
    size = len(head) + 2
    parts = []
    for mine in (True, False):
        for path, entry in entries.items():
            if (path in first) is mine:
                part = json.dumps(path) + ":" + json.dumps(entry, separators=(",", ":"))
                if size + len(part) + 1 <= limit:
                    parts.append(part)
                    size += len(part) + 1
    return head + ",".join(parts) + "}}"


def write_beside(target: str, data: bytes, mode: int) -> None:
    """Write ``data`` to a temporary file beside ``target``, then rename it over: a write that
    fails midway leaves ``target`` whole (or absent)."""
    import tempfile  # only when there is something to write

    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _writable(folder: str) -> bool:
    """A folder the user may write and that is not marked read-only (``chmod a-w``, which
    root's writes would otherwise ignore)."""
    try:
        return os.access(folder, os.W_OK) and bool(os.stat(folder).st_mode & 0o222)
    except OSError:
        return False


def _link_or_other(path: str, file: bool = False) -> bool:
    """True when ``path`` is a symlink, or exists and is not a folder (``file``: a regular
    file of graphlint's, :data:`MARK`)."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # nothing there
        return False
    except OSError:  # it cannot be told
        return True
    if not file:
        return not stat.S_ISDIR(st.st_mode)
    return not own_file(path, st)


def own_file(path: str, st: os.stat_result, *, partial: bool = False) -> bool:
    """A context file graphlint wrote: a regular file (no link), marked. ``partial``: a
    temporary file of :func:`write_beside`'s for one, left by a writer killed before it renamed
    it (``kill -9``, a power cut; its name is the caller's to test): a regular file of this
    user's, holding the beginning of a context file (or nothing yet)."""
    if not stat.S_ISREG(st.st_mode) or (partial and st.st_uid != os.getuid()):
        return False
    try:
        head, _ = read_head(path, len(MARK), follow=False)
    except OSError:
        return False
    return MARK.startswith(head) if partial else head == MARK


def _prune(folder: str, in_use: Collection[str] = ()) -> None:
    """Drop the least recently written context files beyond :data:`KEEP` (never one of the
    run's own, ``in_use``: a run over more configurations than KEEP, in one cache folder,
    pruned its first contexts, and every later run analysed every file again) and the
    temporary files of writers killed more than :data:`STALE_TEMP_SECONDS` ago: only
    graphlint's own (named as it names them, marked), never a file it did not write nor what
    a link points to."""
    import time

    files = []
    now = time.time()
    for name in os.listdir(folder):
        if TEMP_NAME.fullmatch(name):
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
                if now - st.st_mtime > STALE_TEMP_SECONDS and own_file(path, st, partial=True):
                    os.unlink(path)
            except OSError:
                pass
        elif OWN_NAME.fullmatch(name):
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if own_file(path, st):
                files.append((st.st_mtime, path))
    for _, path in sorted(files, reverse=True)[KEEP:]:
        if os.path.abspath(path) in in_use:
            continue
        try:
            os.unlink(path)
        except OSError:
            pass
