"""What a static check hands the engine: where, what, the related lines, and a fix.

A rule's static form (``graphlint/rules/<rule>/check.py``) returns :class:`Hit` objects; the
engine reports them as findings of that rule (:mod:`graphlint.static.checks`).
"""

from __future__ import annotations

import ast
from typing import Iterable, Iterator, NamedTuple

from graphlint.findings import Location


class Hit(NamedTuple):
    node: ast.AST  # the line (and column) reported
    message: str
    related: tuple = ()  # (node, text) pairs; a Location instead of a node: another file
    fix: str | None = None  # instead of the rule's own fix


def once_per_line(hits: Iterable[Hit]) -> Iterator[Hit]:
    """The hits, at most one per line and message: the first (an analysis may meet the same
    cause through two paths)."""
    seen = set()
    for hit in hits:
        key = (getattr(hit.node, "lineno", 0), hit.message)
        if key not in seen:
            seen.add(key)
            yield hit


def located(module, hit: Hit) -> tuple[Location, list[tuple[Location, str]]]:
    """A hit's location and related sites in ``module`` (a related Location stays as it is)."""
    related = [(where if isinstance(where, Location) else module.location(where), text) for where, text in hit.related]
    return module.location(hit.node), related
