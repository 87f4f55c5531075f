"""Reporters: they only format findings: ``full`` (the default text: related sites and the fix
indented), ``concise`` (one line per finding), ``json``, ``sarif`` (:mod:`graphlint.sarif`),
``github``. A fixable finding (``fixes``: finding -> its :class:`graphlint.fix_view.TextEdit`
edits) is marked ``[*]`` in text, and its edits are in the JSON and SARIF."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from graphlint.text import plural

if TYPE_CHECKING:  # the findings are only formatted here: `graphlint --version` builds none
    from graphlint.findings import Finding
    from graphlint.registry import RuleDescription

def _count_suffix(f: Finding) -> str:
    return f" (×{f.count})" if f.count > 1 else ""


_BOLD, _RED, _YELLOW, _CYAN, _RESET = "\x1b[1m", "\x1b[1;31m", "\x1b[1;33m", "\x1b[36m", "\x1b[0m"


def text(
    findings: list[Finding], rules: Mapping[str, RuleDescription] | None = None, *, statistics: bool = False, color: bool = False,
    fixes: Mapping[Finding, Any] | None = None, quiet: bool = False, concise: bool = False, **_: Any,
) -> str:
    """ruff-like: ``path:line:col: CODE [*] message`` (``path:cell 3:line:col:`` in a notebook,
    ``[*]`` when ``--fix`` can fix it); in ``full`` (not ``concise``) form the related sites and
    the fix indented; path and code coloured when ``color``; no summary when ``quiet``."""

    def paint(value: str, style: str) -> str:
        return f"{style}{value}{_RESET}" if color else value

    fixes = fixes or {}
    lines = []
    for f in findings:
        loc = f.location
        test = f" [{_printable(f.test_id)}]" if f.test_id else ""
        style = _RED if f.severity.value == "error" else _YELLOW
        mark = f" {paint('[*]', _CYAN)}" if fixes.get(f) else ""
        lines.append(
            f"{paint(_printable(loc.display_path()), _BOLD)}:{loc.where}:{loc.column}: {paint(f.code, style)}{mark} "
            f"{_printable(f.message)}{_count_suffix(f)}{test}"
        )
        if concise:
            continue
        for rel in f.related:
            path = _printable(rel.location.display_path())
            lines.append(f"    {paint(path, _CYAN)}:{rel.location.where}: {_printable(rel.message)}")
        if f.fix:
            lines.append(f"    fix: {_printable(f.fix)}")
    if statistics and findings:
        lines.append("")
        names = {f.code: f.name for f in findings}
        for code, n in _statistics(findings).items():
            lines.append(f"{n:5d}\t{paint(code, _BOLD)}\t{names[code]}")
    if not quiet:
        lines.append(_summary(findings))
        fixable = sum(1 for f in findings if fixes.get(f))
        if fixable:
            lines.append(f"graphlint: {paint('[*]', _CYAN)} {fixable} fixable with `--fix`.")
    return "\n".join(lines) + ("\n" if lines else "")


def concise(findings: list[Finding], rules: Mapping[str, RuleDescription] | None = None, **kwargs: Any) -> str:
    """One line per finding (ruff's ``--output-format concise``)."""
    return text(findings, rules, concise=True, **kwargs)


#: Compiled at its first use (``re``'s cache): a string :meth:`str.isprintable` passes holds
#: none of these (~2.5M instructions to compile, at every start otherwise).
_CONTROL = r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]"


def _printable(value: str) -> str:
    """Control characters escaped (``\\n``, ``\\x1b``): a newline in a file name or a
    checkpoint path cannot forge a finding line, an escape sequence never reaches the terminal."""
    if value.isprintable() or not re.search(_CONTROL, value):
        return value
    return re.sub(_CONTROL, lambda m: repr(m.group())[1:-1], value)


def _statistics(findings: list[Finding]) -> dict[str, int]:
    """Findings per code, most frequent first (as ruff's ``--statistics``)."""
    return dict(Counter(f.code for f in findings).most_common())


def _summary(findings: list[Finding]) -> str:
    if not findings:
        return "graphlint: no findings."
    errors = sum(1 for f in findings if f.severity.value == "error")
    warnings = len(findings) - errors
    parts = []
    if errors:
        parts.append(plural(errors, "error"))
    if warnings:
        parts.append(plural(warnings, "warning"))
    return f"graphlint: found {plural(len(findings), 'finding')} ({', '.join(parts)})."


def as_dict(findings: list[Finding], *, statistics: bool = False, fixes: Mapping[Finding, Any] | None = None) -> dict:
    """The JSON document: ``{"version": 1, "findings": [...], "summary": {...}}``, plus
    ``"statistics": [{"code", "name", "count"}, ...]`` (most frequent first) when asked.
    Every field is documented, with a JSON schema, in docs/output.md."""
    fixes = fixes or {}
    items = []
    for f in findings:
        related: list[dict[str, object]] = [
            {"path": r.location.display_path(), "line": r.location.line, "message": r.message} for r in f.related
        ]
        item: dict[str, object] = {
            "code": f.code,
            "name": f.name,
            "severity": f.severity.value,
            "message": f.message,
            "path": f.location.display_path(),
            "line": f.location.line,
            "column": f.location.column,
            "end_line": f.location.end_line,
            "end_column": f.location.end_column,
            "related": related,
            "fix": f.fix,
        }
        if f.location.cell is not None:
            item["cell"] = f.location.cell  # and "line" is the line within the cell
        for rel, out in zip(f.related, related):
            if rel.location.cell is not None:
                out["cell"] = rel.location.cell
        if f.count > 1:
            item["count"] = f.count
        if f.test_id:
            item["test"] = f.test_id
        edits = fixes.get(f)
        item["fixable"] = bool(edits)
        if edits:
            item["edits"] = [e.as_dict() for e in edits]
        items.append(item)
    by_code = dict(sorted(Counter(f.code for f in findings).items()))
    summary = {"findings": len(findings), "by_code": by_code, "fixable": sum(1 for f in findings if fixes.get(f))}
    doc = {"version": 1, "findings": items, "summary": summary}
    if statistics:
        doc["statistics"] = statistics_list(findings)
    return doc


def statistics_list(findings: list[Finding]) -> list[dict]:
    names = {f.code: f.name for f in findings}
    return [{"code": c, "name": names[c], "count": n} for c, n in _statistics(findings).items()]


def as_json(
    findings: list[Finding], rules: Mapping[str, RuleDescription] | None = None, *, statistics: bool = False, fixes: Mapping[Finding, Any] | None = None, **_: Any
) -> str:
    import json

    return json.dumps(as_dict(findings, statistics=statistics, fixes=fixes), indent=2, ensure_ascii=True) + "\n"


def as_sarif(findings: list[Finding], rules: Mapping[str, RuleDescription] | None = None, **kwargs: Any) -> str:
    """SARIF 2.1.0 (:mod:`graphlint.sarif`)."""
    from graphlint.sarif import as_sarif as sarif

    return sarif(findings, rules, **kwargs)


def _gh_escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def as_github(findings: list[Finding], rules: Mapping[str, RuleDescription] | None = None, *, statistics: bool = False, **_: Any) -> str:
    """GitHub Actions workflow commands: ``::warning file=...,line=...::message`` (in a
    notebook the message starts with ``cell 3, line 4:``); statistics as one ``::notice``."""
    lines = []
    for f in findings:
        loc = f.location
        level = "error" if f.severity.value == "error" else "warning"
        cell = f"cell {loc.cell}, line {loc.line}: " if loc.cell is not None else ""
        body = f"{cell}{f.message}{_count_suffix(f)}"
        for rel in f.related:
            body += f"\n{rel.location.display_path()}:{rel.location.where}: {rel.message}"
        if f.fix:
            body += f"\nfix: {f.fix}"
        lines.append(
            f"::{level} file={_gh_escape(loc.display_path(), prop=True)},line={loc.line},"
            f"col={loc.column},title={_gh_escape(f'{f.code} {f.name}', prop=True)}::{_gh_escape(body)}"
        )
    if statistics and findings:
        counts = "\n".join(f"{s['count']:5d} {s['code']} {s['name']}" for s in statistics_list(findings))
        lines.append(f"::notice title=graphlint statistics::{_gh_escape(counts)}")
    return "\n".join(lines) + ("\n" if lines else "")


FORMATTERS: dict[str, Callable[..., str]] = {
    "full": text,
    "concise": concise,
    "json": as_json,
    "sarif": as_sarif,
    "github": as_github,
}
#: The ``--output-format`` names (``text``: ``full``, as before ``concise`` existed).
FORMATS = (*FORMATTERS, "text")
TEXT_FORMATS = frozenset({"full", "concise", "text"})


def rule_list(rules: Iterable, fmt: str = "text") -> str:
    """``graphlint rules``: one line per :class:`graphlint.registry.RuleDescription`, or JSON."""
    import json

    rules = list(rules)
    if fmt == "json":
        data = [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.severity.value,
                "engines": list(r.engines),
                "frameworks": list(r.frameworks),
                "summary": r.summary,
                "options": dict(r.options),
            }
            for r in rules
        ]
        return json.dumps(data, indent=2) + "\n"
    rows = [(r.code, r.name, r.severity.value, "+".join(r.engines), "+".join(r.frameworks) or "any", r.summary) for r in rules]
    # each column as wide as its widest cell (a plugin's long name or `tensorflow+jax+torch`)
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(5)]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row[:5], widths)) + "  " + row[5] + "\n" for row in rows
    )


def rule_doc(rule: RuleDescription) -> str:
    """``graphlint rule CODE``: a :class:`graphlint.registry.RuleDescription` as Markdown."""
    import textwrap

    docs = rule.docs
    lines = [f"# {rule.code} {rule.name} [{rule.severity.value}]\n", docs.get("", "") + "\n"]
    for title in ("What it does", "Why is this bad?", "Example", "Use instead", "Known exemptions"):
        if title in docs:
            lines.append(f"## {title}\n{docs[title]}\n")
    if rule.options:
        lines.append("## Options")
        lines += [f"- `{name}` (default {default!r}): [tool.graphlint.rules.{rule.code}]" for name, default in rule.options.items()]
        lines.append("")
    if rule.fix:
        lines.append("## Fix\n" + textwrap.fill(rule.fix, 90))
    return "".join(line + "\n" for line in lines)


def render(fmt: str, findings: Iterable[Finding], rules: Mapping[str, RuleDescription] | None = None, **kwargs: Any) -> str:
    """``findings`` in format ``fmt``; ``rules``: code → :class:`graphlint.registry.RuleDescription`."""
    return FORMATTERS["full" if fmt == "text" else fmt](list(findings), rules, **kwargs)
