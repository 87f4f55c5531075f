"""The static engine: parse each file with ``ast`` (never import it), run the static rules.

One file in, findings out: :func:`check_file`. Many files: :func:`check_files`, over a process
pool on all cores when there are enough of them (graphlint.static.pool). The fixes of the
findings that were reported are written by :mod:`graphlint.static.fixes` (``--fix``).
"""

from __future__ import annotations

import ast
import os
from dataclasses import replace
from importlib.util import MAGIC_NUMBER, cache_from_source, source_hash
from typing import TYPE_CHECKING, Callable, Iterable

from graphlint.config import Config
from graphlint.findings import (
    SYNTAX_ERROR_CODE,
    SYNTAX_ERROR_FIX,
    SYNTAX_ERROR_NAME,
    Finding,
    Location,
    Severity,
    internal_error,
)
from graphlint.reading import FileTooLarge, NotRegularFile, decode_source, read_head, read_regular
from graphlint.static import checks, prefilter
from graphlint.static.cache import Cache, Inputs, digest, reached
from graphlint.static.cores import available_cores
from graphlint.static.depth import deep_recursion, on_deep_stack, too_deep_at
from graphlint.static.model.module import Module
from graphlint.static.model.project import Project
from graphlint.static.model.scopes import Edit
from graphlint.suppression import UNUSED_NOQA_CODE, only_selected, without_noqa

if TYPE_CHECKING:
    from graphlint.static.hits import StaticRule
    from graphlint.static.notebook import Notebook

#: Larger files are generated data, not code a person wrote: one GL001 instead of parsing.
#: For a notebook, the limit is for its code cells' source, not for its outputs.
MAX_BYTES = 10 * 1024 * 1024
#: A notebook file is read up to this size: outputs (plots, tables) are most of a large one.
MAX_NOTEBOOK_BYTES = 256 * 1024 * 1024
#: Below this many files one process is faster than starting a pool.
PARALLEL_MIN_FILES = 64
#: A word every coding cookie (PEP 263) spells: an ASCII source without it is decoded as ASCII
#: whatever its lines say, so the parser reads its bytes and the text is the same ASCII.
_COOKIE_WORD = b"coding"
#: The GL001 of a source that parses but is deeper than the analysis goes (graphlint.static.depth).
TOO_DEEP_TO_ANALYSE = "too deeply nested to analyse"


class FileResult:
    path: str
    findings: list[Finding]
    edits: list[Edit]
    digest: str
    encoding: str
    notebook: Notebook | None  # a .ipynb file's cells (graphlint.static.notebook)
    read: Inputs | None  # what the result depends on, for the cache (None: not cacheable)

    def __init__(
        self, path: str, findings: list[Finding] | None = None, edits: list[Edit] | None = None, digest: str = "",
        encoding: str = "utf-8", notebook: Notebook | None = None, read: Inputs | None = None,
    ) -> None:
        self.path = path
        self.findings = [] if findings is None else findings
        self.edits = [] if edits is None else edits
        self.digest, self.encoding, self.notebook, self.read = digest, encoding, notebook, read




def too_large(path: str, size: int | None, limit: int = MAX_BYTES, what: str = "file") -> Finding:
    """The GL001 of a source larger than ``limit``; ``size`` None: read only up to past it
    (stdin, which may never end), its size unknown."""
    mib = limit // (1024 * 1024)
    if size is None:
        return syntax_error(path, f"{what} too large to check (more than the limit of {mib} MiB)")
    return syntax_error(path, f"{what} too large to check ({size / 1e6:.0f} MB; the limit is {mib} MiB)")


def read_limit(path: str) -> int:
    """The most bytes of ``path`` the engine reads."""
    return MAX_NOTEBOOK_BYTES if path.endswith(".ipynb") else MAX_BYTES


def syntax_error(path: str, reason: str, line: int = 1, column: int = 1) -> Finding:
    return Finding(
        code=SYNTAX_ERROR_CODE,
        name=SYNTAX_ERROR_NAME,
        severity=Severity.ERROR,
        message=reason,
        location=Location(path, max(1, line), max(1, column)),
        fix=SYNTAX_ERROR_FIX,
    )


class FileSink:
    """The sink static rules report into, for one file (the runtime's sink is
    :class:`graphlint.linter.Sink`; here the engine filters once the file is done)."""

    def __init__(self, path: str):
        self.path = path
        self.found: list[Finding] = []

    def add(self, finding: Finding) -> None:
        self.found.append(finding)

    def internal_error(self, rule, exc: BaseException, hook: str) -> None:
        self.found.append(internal_error(rule.code, hook, exc, Location(self.path, 1), context="on this file "))


def _parse(path: str, data: bytes, decode: bool, source: str | None = None):
    """``(text, tree)`` or a GL001 finding. ``text`` is None when not decoded (not needed).
    ``source``: the text itself (a notebook's cells, read from its UTF-8 JSON), parsed as is:
    a coding comment in a cell means nothing there, as in Jupyter."""
    text = None
    try:
        if source is not None:
            encoding, text = "utf-8", source
            tree = ast.parse(text, filename=path)
        elif decode:
            encoding, text = decode_source(data)
            tree = ast.parse(text, filename=path)
        else:
            encoding = "utf-8"
            tree = ast.parse(data, filename=path)
    except SyntaxError as exc:
        return None, None, _syntax_error(path, exc)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, None, syntax_error(path, f"cannot decode the file as {exc.encoding}: {exc.reason} (byte {exc.start})", line)
    except LookupError as exc:  # an encoding cookie naming an unknown codec
        return None, None, syntax_error(path, f"cannot decode the file: {exc}")
    except (RecursionError, MemoryError):
        return None, None, _too_deep(path, data, text)
    except ValueError as exc:
        return None, None, syntax_error(path, f"cannot parse: {exc}")
    return text, tree, encoding


def _too_deep(path: str, data: bytes, text: str | None) -> Finding:
    """The GL001 of a source nested deeper than Python parses, at the statement where it is
    (the parser's error names no place: :func:`graphlint.static.depth.too_deep_at`)."""
    if text is None:  # parsed from its bytes: decoded as Python decodes them
        try:
            _, text = decode_source(data)
        except (SyntaxError, UnicodeDecodeError, LookupError):
            text = None
    where = too_deep_at(text, path) if text is not None else None
    return syntax_error(path, "too deeply nested to parse", *(where or (1, 1)))


def _syntax_error(path: str, exc: SyntaxError) -> Finding:
    reason = exc.msg or "invalid syntax"
    if "encoding" in reason or "codec" in reason or "unicode error" in reason:
        return syntax_error(path, f"cannot decode the file: {reason}", exc.lineno or 1)
    return syntax_error(path, f"SyntaxError: {reason}", exc.lineno or 1, exc.offset or 1)


def check_file(
    path: str,
    rule_classes: Iterable[type[StaticRule]],
    config: Config,
    *,
    full: bool = False,
    data: bytes | None = None,
    project: Project | None = None,
) -> FileResult:
    """Check one file: GL001 if it cannot be read or parsed, else the static rules' findings.

    Only files whose imports can lead a rule anywhere are analysed (graphlint.static.prefilter);
    ``full=True`` analyses every file that parses: the reference the fast path is tested against.
    ``data``: the file's bytes as given (stdin, an editor's buffer), not read from ``path``.
    ``project``: the run's (or the editor's workspace's) :class:`Project`, which keeps the
    modules of the tree that analyses follow imports to; by default one for this file alone.
    """
    return on_deep_stack(_check_file, path, list(rule_classes), config, full, data, project or Project())


def _check_file(path: str, rules: list[type[StaticRule]], config: Config, full: bool, data: bytes | None, project: Project) -> FileResult:
    result = FileResult(path)
    found = _check(path, rules, config, result, project, full, data)
    result.findings = only_selected(config, found)
    if result.edits:
        reported = {(f.code, f.location.line) for f in result.findings}
        result.edits = [e for e in result.edits if (e.code, e.line) in reported]
    if result.notebook is not None:
        result.findings = result.notebook.to_cells(result.findings)
        result.digest = result.notebook.digest  # of the file, not of the module of its cells
    return result


def _check(
    path: str, rules: list[type[StaticRule]], config: Config, result: FileResult, project: Project, full: bool = False, data: bytes | None = None
) -> list[Finding]:
    if data is not None:  # given (stdin, an editor's buffer): no file on disk to read
        if len(data) > read_limit(path):
            return [too_large(path, len(data), read_limit(path))]
        full = True  # every rule runs (the scan's bytecode shortcut needs the file)
    else:
        try:
            data = read_regular(path, read_limit(path))
        except NotRegularFile:  # a FIFO would block, /dev/zero never end
            return [syntax_error(path, "cannot read the file: not a regular file")]
        except FileTooLarge as exc:
            return [too_large(path, exc.size, exc.limit)]
        except OSError as exc:
            return [syntax_error(path, f"cannot read the file: {exc.strerror or exc}")]
    # what the result was computed from, for a cache or an editor (none records nothing)
    result.read = Inputs(digest(data)) if project.record else None
    raw = data  # the file's bytes (a notebook's data become its cells' source)
    report_unused = config.is_selected(UNUSED_NOQA_CODE)
    if report_unused and not full and b"noqa" in data.lower():
        full = True  # every directive judged: the file is analysed even if no rule could report
    if b"\0" in data:
        return [syntax_error(path, "binary file (it contains NUL bytes), not Python source")]
    broken: list[Finding] = []  # a notebook's cells that cannot be read: the others are checked
    if path.endswith(".ipynb"):
        cells = _notebook(path, data, result, broken)
        if isinstance(cells, list):
            return cells  # its GL001, or nothing for a notebook in another language
        data = cells
    plain = rules and result.notebook is None and data.isascii()  # decoded alike everywhere
    key = (result.read.digest if result.read is not None else data) if plain else None  # Project.key of the bytes
    loaded = project.loaded(path, key) if key is not None else None  # already a module of the tree
    scanned = None
    if loaded is None and result.notebook is None and not full:
        scanned = _scan(path, data, rules, result, project)
        if scanned is _SYNTAX_ONLY:
            return []
    if loaded is not None:
        text, tree, encoding = loaded.text, loaded.tree, "utf-8"
    else:
        # other bytes (non-ASCII, or a cookie that may name another codec): decoded first, as
        # Python decodes them; an ASCII source without a cookie is its own text
        decode = bool(rules) and (not data.isascii() or _COOKIE_WORD in data)
        source = result.notebook.source if result.notebook is not None else None
        text, tree, encoding = _parse(path, data, decode=decode, source=source)
    if tree is None and (repaired := _without_broken_cells(path, result, broken, _unparsable)) is not None:
        text, tree, encoding = _parse(path, data, decode=decode, source=repaired.source)
    if tree is None:
        return broken + [encoding]  # the GL001 finding
    if not rules:
        return broken
    if scanned is None:  # (else the scan found it relevant, with its look-ups)
        relevant, probes = prefilter.decide(path, tree, data, project)  # a module that appears counts
        if result.read is not None:
            result.read.probes = probes
        if not full and not relevant:
            return broken
    if text is None:  # ASCII without a coding cookie (else decoded above): decoded as is
        text = data.decode("ascii")
    with deep_recursion():  # as deep as the parser went (graphlint.static.depth)
        module = loaded.relocated(path) if loaded is not None else _model(path, text, tree, project)
        if module is None and (repaired := _without_broken_cells(path, result, broken, _unanalysable)) is not None:
            text, tree, _ = _parse(path, data, decode=False, source=repaired.source)
            module = _model(path, text, tree, project) if tree is not None else None
        if module is None:
            return broken + [syntax_error(path, TOO_DEEP_TO_ANALYSE)]
        if key is not None:
            project.checked(path, key, module)
        sink = FileSink(path)
        _run_rules(module, rules, config, sink)
    found = without_noqa(sink.found, text, path, report_unused=report_unused)
    if result.read is not None:
        probes, result.read.deps = reached(project, path)
        result.read.probes += probes
    if module.edits:
        result.edits = list(module.edits)
        result.digest = result.read.digest if result.read is not None else digest(raw)  # the file's: the fixes check it
        if result.notebook is not None:
            result.notebook.digest = result.digest  # (what _check_file gives the result)
        result.encoding = encoding
    return broken + found


def _model(path: str, text: str, tree: ast.Module, project: Project) -> Module | None:
    """The model of a parsed file; None when it is deeper than the analysis goes."""
    try:
        return Module(path, text, tree, project)
    except RecursionError:
        return None


def _without_broken_cells(
    path: str, result: FileResult, broken: list[Finding], fails: Callable[[str, str], Finding | None]
) -> Notebook | None:
    """Blank the cells of ``result.notebook`` that ``fails`` gives a GL001 for, each read on its
    own (:meth:`Notebook.cell_texts`), and add those findings, at their cells, to ``broken``:
    Jupyter runs every other cell, so every other cell is checked. The notebook without them
    is ``result.notebook`` and is returned; None, and nothing changed,
    when no cell fails on its own (the whole module's error says it) or the notebook's kernel
    is Python 2 (its other cells are Python 2 too: one GL001)."""
    notebook = result.notebook
    if notebook is None or notebook.python2:
        return None
    found: dict[int, Finding] = {}
    for i, text in enumerate(notebook.cell_texts()):
        finding = fails(path, text)
        if finding is not None:
            cell = notebook.cells[i]
            if notebook.cell_at(finding.location.line) is not cell:  # (an error that names no line)
                finding = replace(finding, location=Location(path, cell.start + 1, 1))
            found[i] = finding
    if not found:
        return None
    result.notebook = notebook.without_cells(found)
    broken.extend(found.values())
    return result.notebook


def _unparsable(path: str, text: str) -> Finding | None:
    """The GL001 of a cell that does not parse, each way :func:`_parse` tells."""
    _, tree, error = _parse(path, b"", decode=False, source=text)
    return error if tree is None else None


def _unanalysable(path: str, text: str) -> Finding | None:
    """The GL001 of a cell that parses but is deeper than the analysis goes."""
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # a cell that parses only with the others
        return None
    return syntax_error(path, TOO_DEEP_TO_ANALYSE) if _model(path, text, tree, Project()) is None else None


def _unencodable(path: str, text: str) -> Finding | None:
    """The GL001 of a cell whose text Python cannot hold: JSON may hold a lone surrogate
    (``"\\ud800"``), Python source may not."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        column = exc.start - text.rfind("\n", 0, exc.start)
        char = f"U+{ord(text[exc.start]):04X}"
        return syntax_error(path, f"cannot decode the cell: a lone surrogate ({char}) is no character", line, column)
    return None


def _run_rules(module: Module, rules: list[type[StaticRule]], config: Config, sink: FileSink) -> None:
    if module.in_tests:  # what a rule about repetition finds in a test module is not reported (graphlint.conventions)
        rules = [cls for cls in rules if not getattr(cls, "repetition", False)]
    checks.run(module, rules, config, sink)  # each rule's static form (graphlint.static.checks)


#: What :func:`_scan` says of a file that compiles and that no rule can report on.
_SYNTAX_ONLY = "syntax only"


def _scan(path: str, data: bytes, rules: list, result: FileResult, project: Project) -> str | bool | None:
    """Decide from the import statements read from the bytes (:func:`prefilter.scan_imports`),
    when they tell: True when a rule may report on the file (it is parsed and analysed),
    :data:`_SYNTAX_ONLY` when none can and the source compiles — the interpreter's own
    bytecode cache proves it (:func:`_compiled`), or a syntax check does, without the ``ast``
    tree (``symtable`` runs the same parser and builds no Python objects: ~40% less time than
    :func:`ast.parse`) — and None when the parse must decide (the bytes cannot tell, or the
    source does not compile: parsed again for its GL001).

    The scan may take a docstring's text for an import, so it finds a file relevant that the
    parsed imports would not: that file is analysed for nothing, never left out."""
    if rules:
        nodes = prefilter.scan_imports(data)
        if nodes is None:
            return None
        relevant, probes = prefilter.decide_imports(path, nodes, data, project)
        if result.read is not None:
            result.read.probes = probes
        if relevant:
            return True
    if _compiled(path, data):
        return _SYNTAX_ONLY
    import symtable  # (here: a file a rule can report on is parsed instead)

    try:
        symtable.symtable(data, path, "exec")  # type: ignore[arg-type]  # bytes, as compile() takes
    except Exception:  # SyntaxError, too deep, ...: _parse says which, as GL001
        return None
    return _SYNTAX_ONLY


#: Folders of installed packages, where :func:`_compiled` applies.
INSTALLED = frozenset({"site-packages", "dist-packages"})


def _compiled(path: str, data: bytes) -> bool:
    """True when ``path`` is a module of an installed package (a folder ``site-packages`` or
    ``dist-packages`` on its path: ``pip install`` compiled every module there, and nobody
    edits them) and this interpreter already compiled exactly this source: its ``__pycache__``
    file (:func:`importlib.util.cache_from_source`) carries this Python's magic number and names
    this source by its hash, or by its mtime and size and was written after the source last
    changed (a source edited, to the same size, within the second it was compiled in has the
    mtime and size the file names). Such a source compiles, so it has no GL001, and no parse
    need say so: an installed package's tree costs a 16-byte read per module. A project's own
    files, which are edited, always get the syntax check."""
    if INSTALLED.isdisjoint(os.path.abspath(path).split(os.sep)):
        return False
    try:
        head, pyc = read_head(cache_from_source(path), 16)  # never blocks (a FIFO, /proc/kmsg)
        st = os.stat(path)
    except (OSError, ValueError, NotImplementedError):  # none written, or no cache for this Python
        return False
    if len(head) < 16 or head[:4] != MAGIC_NUMBER:
        return False
    flags = int.from_bytes(head[4:8], "little")
    if flags & 0b1:  # hash-based: the source's own hash, whatever the pyc's check_source bit says
        return head[8:16] == source_hash(data)
    return (
        flags == 0
        and pyc.st_mtime_ns > st.st_mtime_ns
        and int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(head[12:16], "little") == len(data) & 0xFFFFFFFF == st.st_size & 0xFFFFFFFF
    )


def _notebook(path: str, data: bytes, result: FileResult, broken: list[Finding]) -> bytes | list[Finding]:
    """A notebook's code cells as one module (see graphlint.static.notebook), or its GL001;
    the GL001 of each cell that cannot be read goes to ``broken``, the cell left blank."""
    from graphlint.static.notebook import NotebookError, read_notebook

    try:
        notebook = read_notebook(data)
    except NotebookError as exc:
        return [syntax_error(path, str(exc), exc.line, exc.column)]
    if notebook is None:
        return []
    notebook.digest = result.read.digest if result.read is not None else ""  # of the file's bytes
    result.notebook = notebook
    error = _unencodable(path, notebook.source)
    if error is not None:
        repaired = _without_broken_cells(path, result, broken, _unencodable)
        if repaired is None:
            return [error]
        notebook = repaired
    source = notebook.source.encode("utf-8")
    if len(source) > MAX_BYTES:
        return [too_large(path, len(source), what="code cells")]
    return source


# -- many files ----------------------------------------------------------------------------
def check_files(
    paths: list[str],
    rule_classes: list[type[StaticRule]],
    config: Config,
    *,
    jobs: int | None = None,
    progress: Callable[[int], None] | None = None,
    cache: Cache | None = None,
) -> list[FileResult]:
    """Check every file, in parallel over ``jobs`` processes (default: all cores) when many.
    With a ``cache`` (graphlint.static.cache), unchanged files' results come from it and the
    others' go into it. The run reads the files as they are now: a :class:`Project` of its own
    (each worker process one)."""
    project = Project(record=cache is not None)  # no cache: nothing to record of what was read
    if cache is None:
        return _check_files(paths, rule_classes, config, jobs, progress, project)
    return cache.check(paths, lambda todo: _check_files(todo, rule_classes, config, jobs, progress, project), FileResult, progress, project)


def _check_files(
    paths: list[str],
    rule_classes: list[type[StaticRule]],
    config: Config,
    jobs: int | None,
    progress: Callable[[int], None] | None,
    project: Project,
) -> list[FileResult]:
    jobs = jobs or (available_cores() if len(paths) >= PARALLEL_MIN_FILES else 1)  # (a few files: no need to ask)
    if jobs <= 1 or len(paths) < PARALLEL_MIN_FILES:
        return on_deep_stack(_check_in_turn, paths, rule_classes, config, progress, project)
    from graphlint.static import pool  # here: one file (pre-commit) never starts a pool

    return pool.check_in_pool(paths, rule_classes, config, jobs, progress, record=project.record)


def _check_in_turn(
    paths: list[str], rule_classes: list[type[StaticRule]], config: Config, progress: Callable[[int], None] | None, project: Project
) -> list[FileResult]:
    import gc

    results = []
    enabled = gc.isenabled()
    gc.disable()  # each tree is dropped after its file: cyclic GC passes only cost time
    try:
        for path in paths:
            results.append(check_file(path, rule_classes, config, project=project))
            if progress:
                progress(1)
    finally:
        if enabled:
            gc.enable()
    return results
