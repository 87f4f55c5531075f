"""Findings: what a rule reports, and where."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, replace
from typing import Any, Iterable, Protocol


class Severity(str, enum.Enum):
    """How bad a finding is. Ordered: ``warning`` < ``error``."""

    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return 1 if self is Severity.WARNING else 2


@dataclass(frozen=True)
class Location:
    """A place in the user's source: file, 1-based line, 1-based column.

    In a notebook, ``cell`` is the cell's 1-based number in notebook order, markdown cells
    counted (``cell 3`` as ruff says), and ``line`` the line within that cell; in the kernel
    extension, the ``In [n]`` of the cell's run; ``None`` for a plain file.
    """

    path: str
    line: int
    column: int = 1
    function: str = ""
    cell: int | None = None
    #: Where the construct ends (line, 1-based column just after it), when known.
    end_line: int | None = None
    end_column: int | None = None

    @property
    def where(self) -> str:
        """``cell 3:4`` in a notebook, ``4`` in a file (what follows ``path:``)."""
        return f"cell {self.cell}:{self.line}" if self.cell is not None else str(self.line)

    def display_path(self, base: str | None = None) -> str:
        """The path relative to ``base`` (default: the current directory) when it is inside it."""
        base = base or os.getcwd()
        try:
            rel = os.path.relpath(self.path, base)
        except ValueError:  # another drive on Windows
            return self.path
        return self.path if rel.startswith(os.pardir + os.sep) or rel == os.pardir else rel


@dataclass(frozen=True)
class Related:
    """A second site that belongs to a finding, e.g. where a colliding variable was first made."""

    location: Location
    message: str


@dataclass(frozen=True)
class Finding:
    """One anti-pattern found at one place in the user's code."""

    code: str
    name: str
    severity: Severity
    message: str
    location: Location
    fix: str = ""
    related: tuple[Related, ...] = ()
    count: int = 1
    test_id: str | None = None

    @property
    def key(self) -> tuple[str, str, int]:
        """Findings with the same key are one finding seen several times (a loop)."""
        return (self.code, self.location.path, self.location.line)

    def with_count(self, count: int) -> "Finding":
        return replace(self, count=count)


class FindingSink(Protocol):
    """Where findings go: what a rule's :meth:`~graphlint.Rule.report` and the static engine's
    checks write into (the runtime engine's ``graphlint.linter.Sink``, the static engine's
    per-file sink, a plugin's or a test's own). A rule is made with one: ``Rule(sink, options)``."""

    def add(self, finding: Finding) -> None:
        """Take ``finding`` (the sink applies ``# noqa`` and merges repeats as it sees fit)."""

    def internal_error(self, rule: Any, exc: BaseException, hook: str) -> None:
        """``rule`` (the rule, or its class for a static form) raised ``exc`` in ``hook``:
        record it (as GL000) and go on."""


def _location(loc: Location) -> list:
    if loc.end_line is None:
        return [loc.path, loc.line, loc.column, loc.function, loc.cell]
    return [loc.path, loc.line, loc.column, loc.function, loc.cell, loc.end_line, loc.end_column]


def finding_to_dict(f: Finding) -> dict:
    """A JSON-able form that :func:`finding_from_dict` turns back into the same finding
    (paths as given; it carries findings from pytest-xdist workers to the controller, from a
    kernel to the notebook's report, and into the static cache)."""
    return {
        "code": f.code,
        "name": f.name,
        "severity": f.severity.value,
        "message": f.message,
        "location": _location(f.location),
        "fix": f.fix,
        "related": [[_location(r.location), r.message] for r in f.related],
        "count": f.count,
        "test_id": f.test_id,
    }


def finding_from_dict(d: dict) -> Finding:
    return Finding(
        code=d["code"],
        name=d["name"],
        severity=Severity(d["severity"]),
        message=d["message"],
        location=Location(*d["location"]),
        fix=d["fix"],
        related=tuple(Related(Location(*where), message) for where, message in d["related"]),
        count=d["count"],
        test_id=d["test_id"],
    )


def well_formed(f: Finding) -> bool:
    """Every value of ``f`` of the type it is declared with: what a finding read back from a
    file someone else may have written (the static cache, committed or edited by hand) must be
    before it is reported, else the report cannot be sorted or written."""
    texts = (f.code, f.name, f.message, f.fix, *(r.message for r in f.related))
    return (
        all(isinstance(t, str) for t in texts)
        and _whole(f.count)
        and (f.test_id is None or isinstance(f.test_id, str))
        and all(_sound(loc) for loc in (f.location, *(r.location for r in f.related)))
    )


def _whole(value: object, optional: bool = False) -> bool:
    return (value is None and optional) or (isinstance(value, int) and not isinstance(value, bool))


def _sound(loc: Location) -> bool:
    return (
        isinstance(loc.path, str) and isinstance(loc.function, str) and _whole(loc.line) and _whole(loc.column)
        and all(_whole(v, optional=True) for v in (loc.cell, loc.end_line, loc.end_column))
    )


def sorted_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Report order: by path, cell (in a notebook), line, then code."""
    return sorted(findings, key=lambda f: (f.location.path, f.location.cell or 0, f.location.line, f.code))


#: GL000, made by either engine when a rule raises (its docs: :mod:`graphlint.rules.internal_error`).
INTERNAL_ERROR_CODE = "GL000"
INTERNAL_ERROR_NAME = "internal-error"
INTERNAL_ERROR_FIX = "Report this to the rule's authors; the other rules carried on."

#: GL001, reported by the static engine itself (graphlint.static.engine; its rule class, for
#: the docs: rules/syntax_error/, which the runtime loads without the static engine).
SYNTAX_ERROR_CODE = "GL001"
SYNTAX_ERROR_NAME = "syntax-error"
SYNTAX_ERROR_FIX = "Fix the syntax (or the encoding), or exclude the file with [tool.graphlint] exclude."


def internal_error(rule_code: str, hook: str, exc: BaseException, location: Location, *, context: str = "") -> Finding:
    """The GL000 finding for rule ``rule_code`` raising ``exc`` in ``hook`` (``context``: e.g.
    ``"on this file "``)."""
    return Finding(
        code=INTERNAL_ERROR_CODE,
        name=INTERNAL_ERROR_NAME,
        severity=Severity.ERROR,
        message=f"rule {rule_code} failed {context}in {hook}: {type(exc).__name__}: {exc}",
        location=location,
        fix=INTERNAL_ERROR_FIX,
    )
