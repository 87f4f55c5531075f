"""Findings as LSP diagnostics: code, severity, message and fix, the related sites, and a
link to the rule's page (``docs/rules/GLxxx.md`` in the repository).

A finding names a line and the column where its call or statement starts, and where it ends;
its range runs to that end when it is on the same line, else over the dotted name that starts
there and, for a call, to the call's closing parenthesis on that line.
Columns are characters (graphlint.findings); the client counts UTF-16 units unless it
negotiated another position encoding (the codec converts).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from graphlint.findings import Finding, Location, Severity
from graphlint.server.checker import Checked
from graphlint.server.documents import uri_of

SOURCE = "graphlint"
RULE_DOCS = "https://github.com/graphlint/graphlint/blob/main/docs/rules/{code}.md"
_SEVERITY = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning}
_NAME = re.compile(r"[^\W\d][\w.]*")
_OPEN, _CLOSE = "([{", ")]}"


def span(text: str, start: int) -> int:
    """Where the range of a finding starting at ``start`` in the line ``text`` ends."""
    match = _NAME.match(text, start)
    if match is None:
        return min(len(text), start + 1)
    end = match.end()
    if end < len(text) and text[end] == "(":
        depth = 0
        for i in range(end, len(text)):
            if text[i] in _OPEN:
                depth += 1
            elif text[i] in _CLOSE:
                depth -= 1
                if depth == 0:
                    return i + 1
    return end


def to_range(lines: Sequence[str] | None, where: Location, codec: PositionCodec) -> types.Range:
    """The range of a location (1-based line and column, characters) in ``lines``: to its end
    when it ends on its own line, else over the name or call that starts there."""
    line, column = where.line, where.column
    if not lines:
        position = types.Position(max(0, line - 1), max(0, column - 1))
        return types.Range(position, position)
    index = min(max(0, line - 1), len(lines) - 1)
    text = lines[index]
    start = min(max(0, column - 1), len(text))
    if where.end_line == line and where.end_column is not None and where.end_column - 1 > start:
        end = min(where.end_column - 1, len(text))
    else:
        end = span(text, start)
    return types.Range(
        codec.position_to_client_units(lines, types.Position(index, start)),
        codec.position_to_client_units(lines, types.Position(index, end)),
    )


def message(finding: Finding) -> str:
    return f"{finding.message}\nfix: {finding.fix}" if finding.fix else finding.message


def diagnostic(
    finding: Finding, lines: Sequence[str] | None, codec: PositionCodec,
    locate: Callable[[Location], tuple[str, Sequence[str] | None]],
) -> types.Diagnostic:
    """``finding`` in the document of ``lines``; ``locate(location)``: a related site's document
    and lines."""
    related = []
    for site in finding.related:
        uri, site_lines = locate(site.location)
        related.append(
            types.DiagnosticRelatedInformation(
                types.Location(uri, to_range(site_lines, site.location, codec)), site.message
            )
        )
    return types.Diagnostic(
        range=to_range(lines, finding.location, codec),
        message=message(finding),
        severity=_SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=types.CodeDescription(href=RULE_DOCS.format(code=finding.code)),
        source=SOURCE,
        related_information=related or None,
    )


def diagnostics(checked: Checked, codec: PositionCodec, elsewhere: Callable[[str], Sequence[str] | None]) -> dict[str, list[types.Diagnostic]]:
    """The diagnostics of each document of the check (a notebook: of each cell, ``[]`` for a
    cell without any). ``elsewhere(path)``: the lines of another file (a related site in a
    module the analysis followed), or None."""
    snapshot = checked.snapshot
    out: dict[str, list[types.Diagnostic]] = {uri: [] for uri in snapshot.cells}
    if not out:
        return out
    for finding in checked.result.findings:
        uri, lines = where(checked, finding.location, elsewhere)
        out.setdefault(uri, []).append(diagnostic(finding, lines, codec, lambda loc: where(checked, loc, elsewhere)))
    return out


def where(checked: Checked, location: Location, elsewhere: Callable[[str], Sequence[str] | None]) -> tuple[str, Sequence[str] | None]:
    """The document (or cell) a location of the check is in, and its lines: another file's
    through ``elsewhere``; a site of the notebook in no cell, its first."""
    snapshot = checked.snapshot
    index = snapshot.index_of(location)
    if index is None and snapshot.index_of(replace(location, cell=1)) is not None:
        index = 0
    if index is not None:
        return snapshot.cells[index], snapshot.lines(index)
    return uri_of(location.path), elsewhere(location.path)


def at(diagnostics: Sequence[types.Diagnostic], position: types.Position) -> list[types.Diagnostic]:
    """The diagnostics whose range holds ``position`` (its end included, as editors place
    the cursor after a word)."""
    found = []
    for d in diagnostics:
        start, end = d.range.start, d.range.end
        if (start.line, start.character) <= (position.line, position.character) <= (end.line, end.character):
            found.append(d)
    return found
