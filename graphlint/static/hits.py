"""What a static check hands the engine: where, what, the related lines, and a fix.

A rule's static form (``graphlint/rules/<rule>/check.py``) returns :class:`Hit` objects; the
engine reports them as findings of that rule (:mod:`graphlint.static.checks`). The engine is
handed the rule classes (by the registry) and never imports a rule: what it knows of one is
:class:`StaticRule`, which a :class:`graphlint.Rule` subclass fits.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Iterator, NamedTuple, Protocol

from graphlint.findings import FindingSink, Location, Severity

if TYPE_CHECKING:
    from graphlint.static.model.module import Module


class Hit(NamedTuple):
    node: ast.AST  # the line (and column) reported
    message: str
    related: tuple[tuple[ast.AST | Location, str], ...] = ()  # a Location instead of a node: another file
    fix: str | None = None  # instead of the rule's own fix
    severity: Severity | None = None  # instead of the rule's own severity


class StaticRule(Protocol):
    """A rule as the static engine uses it (its functions take ``type[StaticRule]``)."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    fix: ClassVar[str]
    options: ClassVar[dict[str, Any]]

    @classmethod
    def static_form(cls) -> Callable[[Module, dict[str, Any]], Iterable[Hit]] | None:
        """``check(module, options)``, or None when the rule has no static form."""

    @classmethod
    def may_report_on(cls, text: str) -> bool:
        """Whether the static form can find anything in a module of source ``text``."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        """A plugin's rule with a ``check_module`` method is made as the runtime makes it."""


def once_per_line(hits: Iterable[Hit]) -> Iterator[Hit]:
    """The hits, at most one per line and message: the first (an analysis may meet the same
    cause through two paths)."""
    seen = set()
    for hit in hits:
        key = (getattr(hit.node, "lineno", 0), hit.message)
        if key not in seen:
            seen.add(key)
            yield hit


def located(module: Module, hit: Hit) -> tuple[Location, list[tuple[Location, str]]]:
    """A hit's location and related sites in ``module`` (a related Location stays as it is)."""
    related = [(where if isinstance(where, Location) else module.location(where), text) for where, text in hit.related]
    return module.location(hit.node), related
