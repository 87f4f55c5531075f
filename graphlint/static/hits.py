"""What a static analysis hands its rule: where, what, and the related lines.

An analysis under ``graphlint/static/`` returns :class:`Hit` objects; the rule's static form
(``check_module``) is a thin function that reports them with :func:`report_hits`.
"""

from __future__ import annotations

import ast
from typing import Iterable, NamedTuple

from graphlint.findings import Location


class Hit(NamedTuple):
    node: ast.AST  # the line reported
    message: str
    related: tuple = ()  # (node, text) pairs; a Location instead of a node: another file


def report_hits(rule, module, hits: Iterable[Hit], fix: str | None = None) -> None:
    """Report each hit through ``rule.report``, at most one per line and message cause (with
    ``fix`` instead of the rule's own when given)."""
    seen = set()
    for hit in hits:
        key = (getattr(hit.node, "lineno", 0), hit.message)
        if key in seen:
            continue
        seen.add(key)
        rule.report(
            hit.message,
            module.location(hit.node),
            related=[(where if isinstance(where, Location) else module.location(where), text) for where, text in hit.related],
            fix=fix,
        )
