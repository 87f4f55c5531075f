"""Hover: the rule's documentation (what ``graphlint rule CODE`` prints) over one of its
diagnostics, or over its code in a ``# noqa: GLxxx`` comment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from lsprotocol import types

from graphlint.report import rule_doc
from graphlint.server.noqa import place

if TYPE_CHECKING:
    from graphlint.registry import RuleDescription


def _docs(code: str, rules: Mapping[str, RuleDescription]) -> str:
    """A code's documentation; a prefix (``GL3``): the rules it names, one line each."""
    code = code.upper()
    if code in rules:
        return rule_doc(rules[code])
    named = [r for c, r in rules.items() if c.startswith(code)]
    if not named:
        return f"`{code}`: no graphlint rule has this code or prefix (see `graphlint rules`)."
    return f"`{code}` names {len(named)} rules:\n\n" + "\n".join(f"- `{r.code}` {r.name}: {r.summary}" for r in named)


def in_noqa(line: str, character: int, rules: Mapping) -> tuple[str, int, int] | None:
    """``(markdown, start, end)`` when ``character`` of ``line`` is in a ``# noqa`` comment:
    the documentation of the code under it, or of every code the comment names."""
    found = place(line)
    if found is None or not found.start <= character <= found.end:
        return None
    if found.directive.invalid:
        return f"Invalid `# noqa` (it silences nothing): {found.directive.invalid}.", found.start, found.end
    if not found.codes:
        return "`# noqa` silences every code on this line.", found.start, found.end
    for code, start, end in found.codes:
        if start <= character <= end:
            return _docs(code, rules), start, end
    return "\n---\n".join(_docs(code, rules) for code, _, _ in found.codes), found.start, found.end


def hover(
    line: str, character: int, here: Sequence[types.Diagnostic], rules: Mapping[str, RuleDescription],
    to_client: Callable[[int], types.Position],
) -> types.Hover | None:
    """The hover at ``character`` (a character offset) of the line whose text is ``line``;
    ``here``: graphlint's diagnostics at that position; ``to_client`` turns a character
    offset on that line into a client position."""
    found = in_noqa(line, character, rules)
    if found is not None:
        text, start, end = found
        where = types.Range(to_client(start), to_client(end))
    elif here:
        codes = list(dict.fromkeys(str(d.code) for d in here))
        text = "\n---\n".join(_docs(code, rules) for code in codes)
        where = here[0].range
    else:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), where)
