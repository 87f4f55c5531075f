"""Code actions: the fix of a finding that has one (``quickfix``), every fix of a document at
once (``source.fixAll.graphlint``, what ``graphlint check --fix`` writes), and "disable GLxxx
for this line" (adds the code to the line's ``# noqa``, or a ``# noqa: GLxxx``).

The engine's fixes are :class:`graphlint.static.model.scopes.Edit` objects, character offsets into
the checked source (a notebook: into the module of its cells); here they become text edits of
the document, or of the cells, they fall in.
"""

from __future__ import annotations

import bisect
import io
import tokenize
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from graphlint.findings import INTERNAL_ERROR_CODE, SYNTAX_ERROR_CODE, Finding
from graphlint.server.checker import Checked
from graphlint.server.documents import LINE_BREAK
from graphlint.server.settings import Settings
from graphlint.server.noqa import silencing
from graphlint.static.fixes import fixed_source
from graphlint.static.model.scopes import Edit

FIX_ALL = "source.fixAll.graphlint"


@dataclass(frozen=True)
class Placed:
    """An engine edit placed in the document: the cell (or 0), its start and end (0-based
    line, character), the text it replaces."""

    edit: Edit
    index: int
    start: tuple[int, int]
    end: tuple[int, int]
    old: str


def _starts(text: str) -> list[int]:
    return [0] + [m.end() for m in LINE_BREAK.finditer(text)]


def placed(checked: Checked) -> list[Placed]:
    """The check's edits placed in its document; an edit across two cells is left out (as
    ``--fix`` leaves it)."""
    result, snapshot = checked.result, checked.snapshot
    if not result.edits:
        return []
    notebook = result.notebook
    # the engine's text of a plain document has no byte-order mark: one character less on line 1
    bom = notebook is None and snapshot.texts[0].startswith("\ufeff")
    source = notebook.source if notebook is not None else snapshot.texts[0][bom:]
    if notebook is None and not _read_as_held(snapshot.data, result.encoding, source):
        return []  # the engine's offsets are into another text: placed here they would damage it
    starts = _starts(source)

    def position(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(starts, offset) - 1
        return line, offset - starts[line] + (bom and line == 0)

    out = []
    for edit in result.edits:
        (line, char), (end_line, end_char) = position(edit.start), position(edit.end)
        index = 0
        if notebook is not None:
            cell = notebook.cell_at(line + 1)
            if cell is None or notebook.cell_at(position(max(edit.start, edit.end - 1))[0] + 1) is not cell:
                continue
            index, line, end_line = cell.index, line - cell.start, end_line - cell.start
        out.append(Placed(edit, index, (line, char), (end_line, end_char), source[edit.start : edit.end]))
    return out


def _read_as_held(data: bytes, encoding: str, text: str) -> bool:
    """Whether the engine, decoding ``data`` as ``encoding``, read ``text``: not so when the
    coding cookie names a codec that cannot hold the editor's text (its UTF-8 bytes then
    read as latin-1, say), where every column after such a character differs."""
    try:
        return data.decode("utf-8-sig" if encoding == "utf-8-sig" else encoding) == text
    except (UnicodeError, LookupError):
        return False


def _module_line(checked: Checked, finding: Finding) -> int:
    """The line of the checked module a finding names (a notebook's: the cell's line in it)."""
    notebook = checked.result.notebook
    if notebook is None or finding.location.cell is None:
        return finding.location.line
    cell = next((c for c in notebook.cells if c.number == finding.location.cell), None)
    return finding.location.line + cell.start if cell is not None else finding.location.line


def _text_edit(
    lines: Sequence[str], codec: PositionCodec, start: tuple[int, int], end: tuple[int, int], text: str
) -> types.TextEdit:
    return types.TextEdit(
        types.Range(
            codec.position_to_client_units(lines, types.Position(*start)),
            codec.position_to_client_units(lines, types.Position(*end)),
        ),
        text,
    )


def _quoted(text: str) -> str:
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"`{text}`"


def fix_title(code: str, old: str, new: str) -> str:
    if not old:
        what = f"Insert {_quoted(new)}"
    elif not new:
        what = f"Remove {_quoted(old)}"
    else:
        what = f"Replace {_quoted(old)} with {_quoted(new)}"
    return f"graphlint ({code}): {what}"


def _unsafe_line_ends(text: str, lines: Sequence[str]) -> set[int]:
    """0-based lines whose end is inside a string or continued by a backslash: no comment
    can be added there. A text that does not tokenize: only the backslashes are known."""
    found = {i for i, line in enumerate(lines) if line.rstrip().endswith("\\")}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.start[0] != token.end[0] and token.type not in (tokenize.NL, tokenize.NEWLINE):
                found.update(range(token.start[0] - 1, token.end[0] - 1))
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def noqa_edit(text: str, lines: Sequence[str], line: int, code: str, codec: PositionCodec) -> types.TextEdit | None:
    """The edit that silences ``code`` on the 0-based ``line`` (graphlint.server.noqa: the code
    added to the line's ``# noqa``, or a ``  # noqa: CODE`` at its end). None where no comment
    can go, or the line's directive silences the code already."""
    if not 0 <= line < len(lines) or line in _unsafe_line_ends(text, lines):
        return None
    change = silencing(lines[line], code)
    if change is None:
        return None
    start, end, new = change
    return _text_edit(lines, codec, (line, start), (line, end), new)


def _kind(kind: Any) -> str:
    return str(getattr(kind, "value", kind))


def _wanted(only: Sequence[str] | None, kind: str) -> bool:
    """Whether ``kind`` is among the kinds the client asked for (``source`` asks for
    ``source.fixAll.graphlint``)."""
    kind = _kind(kind)
    return only is None or any(kind == _kind(k) or kind.startswith(_kind(k) + ".") for k in only)


def _workspace_edit(checked: Checked, edits: dict[int, list[types.TextEdit]], versioned: bool) -> types.WorkspaceEdit:
    snapshot = checked.snapshot
    if versioned:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    types.OptionalVersionedTextDocumentIdentifier(snapshot.cells[i], snapshot.versions[i]), changes
                )
                for i, changes in sorted(edits.items())
            ]
        )
    return types.WorkspaceEdit(changes={snapshot.cells[i]: changes for i, changes in sorted(edits.items())})


def fix_all(checked: Checked, codec: PositionCodec, versioned: bool) -> types.CodeAction | None:
    """Every fix of the document: the edits ``graphlint check --fix`` would apply to it."""
    fixed = fixed_source(checked.result, checked.snapshot.data) if checked.result.edits else None
    if fixed is None:
        return None
    chosen = set(fixed[1])
    edits: dict[int, list[types.TextEdit]] = {}
    for p in placed(checked):
        if p.edit in chosen:
            lines = checked.snapshot.lines(p.index)
            edits.setdefault(p.index, []).append(_text_edit(lines, codec, p.start, p.end, p.edit.replacement))
    if not edits:
        return None
    return types.CodeAction(
        "graphlint: Fix all auto-fixable problems", kind=FIX_ALL, edit=_workspace_edit(checked, edits, versioned)
    )


def code_actions(
    checked: Checked,
    uri: str,
    lines_range: tuple[int, int],
    only: Sequence[str] | None,
    settings: Settings,
    codec: PositionCodec,
    diagnostic_of: Callable[[Finding], types.Diagnostic],
    versioned: bool,
) -> list[types.CodeAction]:
    """The actions for the document (or cell) ``uri`` between two 0-based lines.
    ``diagnostic_of(finding)``: the finding's diagnostic, which each quick fix names."""
    snapshot = checked.snapshot
    index = snapshot.index_of_uri(uri)
    if index is None:
        return []
    lines = snapshot.lines(index)
    first, last = lines_range
    actions: list[types.CodeAction] = []
    edits = placed(checked)
    if _wanted(only, types.CodeActionKind.QuickFix):
        for finding in checked.result.findings:
            if snapshot.index_of(finding.location) != index or not first <= finding.location.line - 1 <= last:
                continue
            diagnostic = diagnostic_of(finding)
            if settings.fix_violation:
                line = _module_line(checked, finding)
                for p in edits:
                    if p.edit.code == finding.code and p.edit.line == line and p.index == index:
                        change = _text_edit(lines, codec, p.start, p.end, p.edit.replacement)
                        actions.append(
                            types.CodeAction(
                                fix_title(finding.code, p.old, p.edit.replacement),
                                kind=types.CodeActionKind.QuickFix,
                                diagnostics=[diagnostic],
                                edit=_workspace_edit(checked, {index: [change]}, versioned),
                                is_preferred=True,
                            )
                        )
            if settings.disable_rule_comment and finding.code not in (SYNTAX_ERROR_CODE, INTERNAL_ERROR_CODE):
                silence = noqa_edit(snapshot.texts[index], lines, finding.location.line - 1, finding.code, codec)
                if silence is not None:
                    actions.append(
                        types.CodeAction(
                            f"graphlint ({finding.code}): Disable for this line",
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=[diagnostic],
                            edit=_workspace_edit(checked, {index: [silence]}, versioned),
                        )
                    )
    if settings.fix_all and _wanted(only, FIX_ALL):
        action = fix_all(checked, codec, versioned)
        if action is not None:
            actions.append(action)
    return actions
