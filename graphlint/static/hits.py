"""What a static analysis hands its rule: where, what, and the related lines.

An analysis under ``graphlint/static/`` returns :class:`Hit` objects; the rule's static form
(``check_module``) is a thin function that reports them with :func:`report_hits`.
"""

from __future__ import annotations

import ast
from typing import Iterable, NamedTuple


class Hit(NamedTuple):
    node: ast.AST  # the line reported
    message: str
    related: tuple = ()  # (node, text) pairs


def report_hits(rule, module, hits: Iterable[Hit]) -> None:
    """Report each hit through ``rule.report``, at most one per line and message cause."""
    seen = set()
    for hit in hits:
        key = (getattr(hit.node, "lineno", 0), hit.message)
        if key in seen:
            continue
        seen.add(key)
        rule.report(
            hit.message,
            module.location(hit.node),
            related=[(module.location(node), text) for node, text in hit.related],
        )
