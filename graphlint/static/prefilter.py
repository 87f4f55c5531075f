"""Which parsed files the static analysis can report on: decided from the file's imports.

Every file is parsed (a syntax error is GL001 wherever it is), but building the
:class:`~graphlint.static.model.module.Module` model and running the rules costs several times the
parse. A rule matches only names that the file's imports resolve to a TensorFlow, Keras,
JAX or PyTorch API (see :mod:`graphlint.static.model.names`), or a user's function or class that a call reaches
in another module of the checked tree (:mod:`graphlint.static.model.project`). So a file needs the
analysis when one of its imports, wherever it sits:

* binds a name whose dotted target names ``tensorflow``, ``keras``, ``jax`` or ``torch``
  (``tf_keras``, ``jax.numpy``, ``tensorflow_hub`` too) — except TensorFlow's own internals
  (``from tensorflow.python.ops import array_ops``, ``tensorflow.core.protobuf``): those
  targets never canonicalise to a public API name, and no rule matches them (an attribute
  path reaches ``tensorflow.python.keras``, Keras, only from ``tensorflow.python`` itself,
  and then the file spells ``keras``);
* is relative (``from . import model``), or names a module whose file lies beside the checked
  file, where :meth:`graphlint.static.model.project.Project.find_module` looks for it.

Never stricter than the analysis: the same import statements :class:`Module` binds names
from are read here (also inside functions, ``if``, ``try``, ``with`` and ``match``), and a test
compares the result of this path with the full analysis of every file on the samples and on
a corpus of real code (``tests/static/test_speed_paths.py``).

Before the parse, :func:`scan_imports` reads the import statements of most files from their
bytes alone (every ``import`` word stands in a whole-line import statement or a comment); a
file they leave out of the analysis needs only a syntax check, which costs less than building
its ``ast`` tree (graphlint.static.engine).
"""

from __future__ import annotations

import ast
import os
import re

from graphlint.static.model.project import LIBRARIES, Project
from graphlint.static.model.scopes import NESTED

_FAMILY = re.compile(r"tensorflow|keras|jax|torch")
#: TensorFlow's own packages, not its public API (``tf.core`` does not exist; ``tf.tools``,
#: ``tf.security`` and ``tf.dtensor`` are only the packages, left as attributes by the import).
_INTERNAL = frozenset({"python", "core", "compiler", "security", "tools", "dtensor"})
_IMPORTS = (ast.Import, ast.ImportFrom)


def imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, where :class:`Module` collects its bindings from (the same
    statements, in the same order)."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.stmt] = list(reversed(tree.body))
    pop, push, nested = stack.pop, stack.extend, NESTED.get
    while stack:
        node = pop()
        cls = type(node)
        if cls in _IMPORTS:
            found.append(node)  # type: ignore[arg-type]  # type(node) is one of _IMPORTS
            continue
        names = nested(cls)
        if names:
            for name in names:
                children = getattr(node, name)
                if children:
                    push(reversed(children))
    return found


def _bound(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted targets the import binds names to (as :class:`~names.Bindings` does)."""
    if isinstance(node, ast.Import):
        return [alias.name if alias.asname else alias.name.split(".", 1)[0] for alias in node.names]
    module = node.module or ""
    return [f"{module}.{alias.name}" if alias.name != "*" else module for alias in node.names]


def _named(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The full dotted names the import mentions (each prefix may be a user's module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    module = node.module or ""
    return [f"{module}.{alias.name}" if alias.name != "*" else module for alias in node.names]


def _framework(target: str, data: bytes) -> bool:
    if not _FAMILY.search(target):
        return False
    head, _, rest = target.partition(".")
    if head == "tensorflow" and rest.split(".", 1)[0] in _INTERNAL and "keras" not in target:
        # no attribute path from here reaches a public name, but ``python.keras.layers``
        # from ``tensorflow.python`` itself (tensorflow.python.keras is Keras)
        return rest == "python" and b"keras" in data
    return True


def lookups(tree: ast.Module | None, nodes: list | None = None) -> list[str]:
    """Each dotted name (and its prefixes) the file's absolute imports may find a user's
    module under: ``import a.b`` / ``from a.b import c`` look for ``a``, ``a.b``, ``a.b.c``.
    ``nodes``: the file's import statements, when :func:`imports` already found them."""
    found: dict[str, None] = {}
    if nodes is None:
        assert tree is not None, "the tree, or its import statements"
        nodes = imports(tree)
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level:
            continue
        for dotted in _named(node):
            parts = dotted.split(".")
            if parts[0] and parts[0] not in LIBRARIES:
                for cut in range(1, len(parts) + 1):
                    found[".".join(parts[:cut])] = None
    return list(found)


def probes(
    path: str, tree: ast.Module | None, nodes: list | None = None, project: Project | None = None
) -> list[tuple[str, int, str, str | None]]:
    """The look-ups of the file's absolute imports, as the cache stores them: (file, level,
    dotted, the file found or None), made in ``project`` (by default, one of their own)."""
    here = os.path.abspath(path)
    find = (project or Project()).module_file
    return [(here, 0, dotted, find(path, dotted, 0, here)) for dotted in lookups(tree, nodes)]


def decide(path: str, tree: ast.Module, data: bytes, project: Project | None = None) -> tuple[bool, list]:
    """Whether the analysis of this parsed file can report anything (see the module doc),
    and the look-ups that decided it (:func:`probes`)."""
    return decide_imports(path, imports(tree), data, project)


def decide_imports(path: str, nodes: list, data: bytes, project: Project | None = None) -> tuple[bool, list]:
    """:func:`decide` for a file's import statements (those of its tree, or of
    :func:`scan_imports`). The look-ups are made only when the imports alone do not decide,
    or when ``project`` records them (a cache's, an editor's: it stores every one)."""
    decided = False
    for node in nodes:
        if (isinstance(node, ast.ImportFrom) and node.level) or any(_framework(target, data) for target in _bound(node)):
            decided = True  # the user's own package, or a framework
            break
    if decided and project is not None and not project.record:
        return True, []
    looked = probes(path, None, nodes, project)
    return decided or any(hit is not None for *_, hit in looked), looked


def relevant(path: str, tree: ast.Module, data: bytes) -> bool:
    """Whether the analysis of this parsed file can report anything (see the module doc)."""
    return decide(path, tree, data)[0]


# -- import statements read from the bytes, before the parse --------------------------------
_DOTTED = rb"\w+(?:[ \t]*\.[ \t]*\w+)*"
_ALIAS = rb"\w+(?:[ \t]+as[ \t]+\w+)?"
#: One whole import statement from the start of its line: ``import a.b as c, d``, ``from .x
#: import y as z, w``, ``from x import *`` or a parenthesised list of names over several
#: lines (no comment inside), then an optional comment and the end of the line.
_STATEMENT = re.compile(
    rb"[ \t]*(?:import[ \t]+(?P<names>" + _DOTTED + rb"(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*" + _DOTTED
    + rb"(?:[ \t]+as[ \t]+\w+)?)*)"
    + rb"|from[ \t]+(?P<dots>\.*)[ \t]*(?P<module>" + _DOTTED + rb")?[ \t]+import[ \t]*(?:(?P<star>\*)|(?P<aliases>"
    + _ALIAS + rb"(?:[ \t]*,[ \t]*" + _ALIAS + rb")*)|\((?P<listed>\s*" + _ALIAS + rb"(?:\s*,\s*" + _ALIAS
    + rb")*\s*,?\s*)\)))[ \t]*(?:#[^\r\n]*)?\r?$",
    re.M,
)
#: A docstring example's prompts: no line of code starts with them (``>>> import x`` does not
#: compile), so in a file that compiles — the only one the scan's verdict is used for — such a
#: line is inside a string.
_PROMPTS = frozenset({b">>>", b"..."})
#: The bytes ``\s`` matches in a bytes pattern (deleted from a dotted name: ``a . b`` is ``a.b``).
_WHITESPACE = b" \t\n\r\f\v"
_AS = re.compile(rb"\s+as\s+")
_WORD_BYTE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
#: A coding cookie (PEP 263), on the first two lines; ASCII bytes decode alike in these codecs.
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.M)
_ASCII_CODECS = re.compile(rb"(?i)(utf[-_]?8(-sig)?|ascii|us-ascii|latin[-_]?1|iso[-_]?8859[-_]?\d+|cp125\d)$")


def scan_imports(data: bytes) -> list[ast.Import | ast.ImportFrom] | None:
    """The import statements of a source, read without parsing it, or None when the bytes
    alone cannot tell: an ``import`` word that is neither in a whole-line import statement
    nor in a plain comment (a docstring's example, ``if x: import y``, a continued line), or
    a coding cookie naming a codec that may decode ASCII bytes otherwise. A docstring
    example's ``>>> import x`` is left out: it cannot be code in a file that compiles, and
    the scan's verdict counts only for one (the engine checks its syntax).

    Never misses an import the parser finds: each one spells the keyword ``import`` in ASCII,
    and a word not explained sends the file to the parser. Statements are matched in ASCII
    only: a name the parser would normalise (NFKC) fails the match, and so sends the file to
    the parser too. Text that only looks like an import (in a docstring) is taken as one,
    which can only make a file relevant, never hide one.
    """
    head = data[: data.find(b"\n", data.find(b"\n") + 1) + 1 or len(data)]  # the first two lines
    cookie = _COOKIE.search(head)
    if cookie is not None and _ASCII_CODECS.match(cookie.group(1)) is None:
        return None
    found: list[ast.Import | ast.ImportFrom] = []
    find, rfind, end = data.find, data.rfind, len(data)
    covered = -1
    line_from = 0  # a line start at or before the next word's line: no search goes back past it
    next_lf = next_cr = -1  # the next LF and CR found so far (each searched again only once passed)
    at = find(b"import")
    while at >= 0:
        after = at + 6
        if (at and data[at - 1] in _WORD_BYTE) or (after < end and data[after] in _WORD_BYTE) or at < covered:
            at = find(b"import", after)
            continue  # part of a longer name (``importlib``, ``__import__``), or already read
        # a lone CR ends a line too
        start = line_from = max(rfind(b"\n", line_from, at), rfind(b"\r", line_from, at), line_from - 1) + 1
        match = _STATEMENT.match(data, start)
        if match is not None and match.end() > at and not _continued(data, start):
            found.append(_node(match))
            covered = match.end()
        else:
            before = data[start:at]
            if before.strip() not in _PROMPTS:
                hash_at = before.find(b"#")
                if hash_at < 0 or b"'" in before or b'"' in before:
                    return None  # not a statement the bytes can tell, nor in a plain comment
            # the rest of the comment (or docstring example), to the line's end, is never looked at again
            if next_lf < at:
                next_lf = find(b"\n", at) % (end + 1)  # -1 (none): the end of the data
            if next_cr < at:
                next_cr = find(b"\r", at) % (end + 1)
            covered = min(next_lf, next_cr)
        at = find(b"import", after)
    return found


def _continued(data: bytes, start: int) -> bool:
    """The line before ``start`` ends with a backslash: a statement began there."""
    return data.endswith((b"\\\n", b"\\\r\n", b"\\\r"), 0, start)


def _node(match: re.Match) -> ast.Import | ast.ImportFrom:
    """The ``ast`` node of an import statement :data:`_STATEMENT` matched."""
    names = match.group("names")
    if names is not None:
        return ast.Import(names=[_alias(part) for part in names.split(b",")])
    module = match.group("module")
    module = module.translate(None, _WHITESPACE).decode("ascii") if module else None
    if match.group("star") is not None:
        aliases = [ast.alias(name="*", asname=None)]
    else:
        listed = (match.group("aliases") or match.group("listed")).split(b",")
        aliases = [_alias(part) for part in listed if part.strip()]
    return ast.ImportFrom(module=module, names=aliases, level=len(match.group("dots")))


def _alias(part: bytes) -> ast.alias:
    part = part.strip()
    name, *other = _AS.split(part) if b"as" in part else (part,)  # ``name`` or ``name as other``
    return ast.alias(name=name.translate(None, _WHITESPACE).decode("ascii"), asname=other[0].decode("ascii") if other else None)
