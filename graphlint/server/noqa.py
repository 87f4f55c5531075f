"""Where a line's ``# noqa`` directive and its codes are, for the editor: hover over a code,
and "disable GLxxx for this line". What a directive means is graphlint.suppression's
(:func:`~graphlint.suppression.directive`); this module only finds the text it is made of.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphlint.suppression import Directive, directive

_HEAD = re.compile(r"#[ \t]*noqa(?![\w-])(?P<colon>[ \t]*:)?[ \t]*", re.I)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")


@dataclass(frozen=True)
class Place:
    """A line's directive: ``start`` (its ``#``), ``after_head`` (past ``noqa:`` and spaces),
    ``end`` (of its text: the line's, or the next comment's start), and each code it names
    with its span (0-based character offsets in the line)."""

    directive: Directive
    start: int
    after_head: int
    end: int
    codes: tuple[tuple[str, int, int], ...]


def place(line: str) -> Place | None:
    found = directive(line)
    if found is None:
        return None
    start = found.column - 1
    head = _HEAD.match(line, start)
    after = head.end() if head is not None else start
    next_comment = line.find("#", after)
    end = len(line.rstrip()) if next_comment < 0 else next_comment
    codes = []
    if found.codes:
        pos = after
        for code in found.codes:  # in the order the directive names them
            match = re.compile(re.escape(code), re.I).search(line, pos, end)
            if match is None:
                break
            codes.append((code, match.start(), match.end()))
            pos = match.end()
    return Place(found, start, after, max(end, after), tuple(codes))


def silencing(line: str, code: str) -> tuple[int, int, str] | None:
    """``(start, end, text)``: the smallest change of ``line`` after which its directive
    silences ``code`` (the code added after the directive's last, or before an invalid
    directive's text, or a new ``  # noqa: CODE`` at the end of the line); None when it
    already does, or no such change is found."""
    found = place(line)
    if found is None:
        end = len(line.rstrip())
        candidates = [(end, len(line), f"  # noqa: {code}")]
    elif found.directive.covers(code):
        return None
    elif found.codes:
        at = found.codes[-1][2]
        candidates = [(at, at, f", {code}")]
    else:  # invalid: the code first, the text it had after it
        candidates = [(found.after_head, found.after_head, f"{code} ")]
    for start, end, text in candidates:
        after = directive(line[:start] + text + line[end:])
        if after is not None and after.covers(code):
            return start, end, text
    return None
