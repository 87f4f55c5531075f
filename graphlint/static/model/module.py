"""One parsed file with its calls resolved and placed: the :class:`Module` every check reads.

:class:`Module` is built in one pass over the ``ast`` tree (:mod:`graphlint.static.model.build`).
Every call becomes a :class:`~graphlint.static.model.scopes.CallSite` with its canonical API
name (:mod:`graphlint.static.model.names`) and where it sits: the enclosing function, the
loops, ``with`` items and ``try`` parts around it in that function, and the user's own
function it calls, if any. What the checks ask of it beyond that is plain functions of the
model's other modules (how often code runs: :mod:`.repeats`; sessions: :mod:`.sessions`).
Nothing is imported or executed.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Iterator

from graphlint.conventions import is_test_module
from graphlint.findings import Location
from graphlint.static.model.names import Bindings
from graphlint.static.model.scopes import LINE_BREAK, CallSite, ClassInfo, Edit, Function, Loop, WithItem

if TYPE_CHECKING:
    from graphlint.static.model.project import Project


class Module:
    """One parsed source file, its calls resolved, for the static checks."""

    def __init__(self, path: str, text: str, tree: ast.Module, project: Project | None = None):
        from graphlint.static.model.build import build

        if project is None:  # a model of its own (a test's, one file's): a project of its own
            from graphlint.static.model.project import Project

            project = Project()
        #: The user's tree this file is read in: where its imports lead (graphlint.static.model.project).
        self.project = project
        self.path = path
        self.text = text
        self.tree = tree
        self.bindings = Bindings()
        self.calls: list[CallSite] = []
        self.loops: list[Loop] = []
        self.withs: list[WithItem] = []
        self.functions: list[Function] = []
        self.classes: dict[str, ClassInfo] = {}
        self.module_functions: dict[str, Function] = {}
        self.edits: list[Edit] = []
        #: What the analyses of this model remember (several checks ask the same questions).
        self.cache: dict = {}
        self._origins: dict[tuple, set] = {}
        self._line_starts: list[int] | None = None
        self._lines: list[str] | None = None
        #: A test module (graphlint.conventions.is_test_module): its loops enumerate cases.
        self.in_tests = is_test_module(path)
        build(self, tree)

    def relocated(self, path: str) -> "Module":
        """This model named by another path (the same file, as given on the command line or
        as a module of the tree), with fixes and memos of its own: the engine and
        :meth:`graphlint.static.model.project.Project.load` share one parse and build of a file."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.path, twin.edits, twin.cache = path, [], {}
        return twin

    # -- where -------------------------------------------------------------------------------
    def location(self, node: ast.AST | None) -> Location:
        """Where ``node`` is (None, or a node without a position: the file's first line)."""
        line = getattr(node, "lineno", 1)
        col = self._column(line, getattr(node, "col_offset", 0))
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            return Location(self.path, line, col + 1)
        return Location(self.path, line, col + 1, end_line=end_line, end_column=self._column(end_line, end_col) + 1)

    def _column(self, line: int, col: int) -> int:
        """The character column of an ``ast`` UTF-8 byte column."""
        text = self.line_text(line)
        if col and not text.isascii():
            col = len(text.encode("utf-8")[:col].decode("utf-8", "replace"))
        return col

    def line_text(self, line: int) -> str:
        if self._lines is None:
            self._lines = LINE_BREAK.split(self.text)
        return self._lines[line - 1] if 0 < line <= len(self._lines) else ""

    def offset(self, line: int, col_bytes: int) -> int:
        """The character offset in :attr:`text` of an ``ast`` (line, UTF-8 column) position."""
        if self._line_starts is None:
            starts = [0]
            for match in LINE_BREAK.finditer(self.text):
                starts.append(match.end())
            self._line_starts = starts
        text = self.line_text(line)
        col = len(text.encode("utf-8")[:col_bytes].decode("utf-8", "replace")) if not text.isascii() else col_bytes
        return self._line_starts[line - 1] + col

    def add_edit(self, code: str, line: int, start: int, end: int, replacement: str) -> None:
        """Offer a fix for the finding of ``code`` at ``line``; applied only with ``--fix``."""
        self.edits.append(Edit(code, line, start, end, replacement))

    # -- what -----------------------------------------------------------------------------------
    def calls_named(self, *names: str) -> Iterator[CallSite]:
        wanted = set(names)
        return (c for c in self.calls if c.name in wanted)

    def name_origins(self) -> Iterator[tuple["int | None", set]]:
        """Every plain name's origins: ``(id of its scope, or None at module level, labels)``
        (what :meth:`origins` answers for one name; ``self.attr`` keys left out)."""
        return ((key[0], labels) for key, labels in self._origins.items() if len(key) == 2)

    def origin_items(self) -> Iterator[tuple[tuple, set]]:
        """Every origin the model recorded: ``(key, labels)``, the key ending with the name or
        ``self`` attribute (what :meth:`origins` looks up)."""
        return iter(self._origins.items())

    def origins(self, expr: ast.expr | None, scope: "Function | None") -> set:
        """What a name (or ``self.attr``) was assigned from: canonical call names, ``?`` else."""
        key = origin_key(expr, scope)
        if key is None:
            return {"?"}
        found = self._origins.get(key)
        if found is None and key[0] is not None and isinstance(expr, ast.Name):
            if scope is not None and expr.id in scope.params:
                return {"?"}
            found = self._origins.get((None, expr.id))
        return found or {"?"}


_NAME, _ATTRIBUTE = ast.Name, ast.Attribute


def spells(module: Module, word: str) -> bool:
    """Whether a name of ``module`` may be bound to something named ``word`` (``torch``,
    ``jax``): every name an import binds is spelled in the source, so an ASCII source without
    the word binds none. A source with other characters may: the parser reads identifiers in
    NFKC (``import ｊａｘ`` imports ``jax``). A cheap test before a check looks at every call."""
    return not module.text.isascii() or word in module.text


def origin_key(expr: Any, scope: Function | None) -> tuple | None:
    """The key :meth:`Module.origins` files a name (or ``self.attr``) under, or None.
    (``expr``: an ``ast.expr``; ``type(expr) is _NAME``, faster than isinstance, does not narrow it.)"""
    cls = type(expr)
    if cls is _NAME:
        return (id(scope) if scope is not None else None, expr.id)
    if (
        cls is _ATTRIBUTE
        and type(expr.value) is _NAME
        and expr.value.id == "self"
        and scope is not None
        and scope.cls is not None
    ):
        return ("self", id(scope.cls), expr.attr)
    return None
