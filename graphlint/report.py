"""Reporters: they only format findings (text, json, sarif, github)."""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import Callable, Iterable

from graphlint import __version__
from graphlint.findings import Finding
from graphlint.text import plural

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_INFO_URI = "https://github.com/graphlint/graphlint#rules"


def _count_suffix(f: Finding) -> str:
    return f" (×{f.count})" if f.count > 1 else ""


def use_color(stream) -> bool:
    """Colour on a terminal only: never when piped, redirected, or ``NO_COLOR`` is set."""
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


_BOLD, _RED, _YELLOW, _CYAN, _RESET = "\x1b[1m", "\x1b[1;31m", "\x1b[1;33m", "\x1b[36m", "\x1b[0m"


def text(
    findings: list[Finding], rules: dict | None = None, *, statistics: bool = False, color: bool = False
) -> str:
    """ruff-like: ``path:line:col: CODE message`` (``path:cell 3:line:col:`` in a notebook),
    related sites and the fix indented; path and code coloured when ``color``."""

    def paint(value: str, style: str) -> str:
        return f"{style}{value}{_RESET}" if color else value

    lines = []
    for f in findings:
        loc = f.location
        test = f" [{_printable(f.test_id)}]" if f.test_id else ""
        style = _RED if f.severity.value == "error" else _YELLOW
        lines.append(
            f"{paint(_printable(loc.display_path()), _BOLD)}:{loc.where}:{loc.column}: {paint(f.code, style)} "
            f"{_printable(f.message)}{_count_suffix(f)}{test}"
        )
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
    lines.append(_summary(findings))
    return "\n".join(lines) + "\n"


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def _printable(value: str) -> str:
    """Control characters escaped (``\\n``, ``\\x1b``): a newline in a file name or a
    checkpoint path cannot forge a finding line, an escape sequence never reaches the terminal."""
    if not _CONTROL.search(value):
        return value
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], value)


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


def as_dict(findings: list[Finding], *, statistics: bool = False) -> dict:
    """The JSON document: ``{"version": 1, "findings": [...], "summary": {...}}``, plus
    ``"statistics": [{"code", "name", "count"}, ...]`` (most frequent first) when asked."""
    items = []
    for f in findings:
        item = {
            "code": f.code,
            "name": f.name,
            "severity": f.severity.value,
            "message": f.message,
            "path": f.location.display_path(),
            "line": f.location.line,
            "column": f.location.column,
            "related": [
                {"path": r.location.display_path(), "line": r.location.line, "message": r.message}
                for r in f.related
            ],
            "fix": f.fix,
        }
        if f.location.cell is not None:
            item["cell"] = f.location.cell  # and "line" is the line within the cell
        for rel, out in zip(f.related, item["related"]):
            if rel.location.cell is not None:
                out["cell"] = rel.location.cell
        if f.count > 1:
            item["count"] = f.count
        if f.test_id:
            item["test"] = f.test_id
        items.append(item)
    by_code = dict(sorted(Counter(f.code for f in findings).items()))
    doc = {"version": 1, "findings": items, "summary": {"findings": len(findings), "by_code": by_code}}
    if statistics:
        doc["statistics"] = _statistics_list(findings)
    return doc


def _statistics_list(findings: list[Finding]) -> list[dict]:
    names = {f.code: f.name for f in findings}
    return [{"code": c, "name": names[c], "count": n} for c, n in _statistics(findings).items()]


def as_json(findings: list[Finding], rules: dict | None = None, *, statistics: bool = False, **_) -> str:
    import json

    return json.dumps(as_dict(findings, statistics=statistics), indent=2, ensure_ascii=True) + "\n"


def _uri(path: str) -> str:
    from urllib.parse import quote

    # the file name's own bytes (a non-UTF-8 name arrives surrogate-escaped), percent-encoded
    return quote(path.replace("\\", "/").encode("utf-8", "surrogateescape"), safe="/._-~")  # a colon would read as a scheme (`a:b.py`)


def as_sarif(findings: list[Finding], rules: dict | None = None, *, statistics: bool = False, **_) -> str:
    """SARIF 2.1.0 as GitHub code scanning accepts it. In a notebook, ``startLine`` is the line
    within the cell and ``properties.cell`` the cell; statistics go in the run's properties.
    ``rules`` maps codes to :class:`graphlint.registry.RuleDescription` (the rule metadata)."""
    import json

    rules = dict(rules or {})
    used = sorted({f.code for f in findings} | set(rules))
    index = {code: i for i, code in enumerate(used)}
    descriptors = []
    for code in used:
        rule = rules.get(code)
        sample = next((f for f in findings if f.code == code), None)
        name = rule.name if rule else sample.name
        summary = (rule.summary if rule else sample.message) or name
        docs = rule.docs if rule else {}
        help_md = "\n\n".join(f"## {k}\n{v}" for k, v in docs.items() if k) or summary
        severity = (rule.severity if rule else sample.severity).value
        descriptors.append(
            {
                "id": code,
                "name": name,
                "shortDescription": {"text": summary},
                "fullDescription": {"text": docs.get("What it does", summary)},
                "help": {"text": help_md, "markdown": help_md},
                "helpUri": _INFO_URI,
                "defaultConfiguration": {"level": severity},
                "properties": {"tags": ["tensorflow", "performance"]},
            }
        )
    results = []
    for f in findings:
        loc = f.location
        result = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": f.severity.value,
            "message": {"text": f.message + (f"\nFix: {f.fix}" if f.fix else "")},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(loc.display_path())},
                        "region": {"startLine": max(1, loc.line), "startColumn": max(1, loc.column)},
                    }
                }
            ],
            "partialFingerprints": {"graphlint/v1": f"{f.code}:{loc.display_path()}:{loc.where}"},
        }
        if f.related:
            result["relatedLocations"] = [
                {
                    "id": i,
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(r.location.display_path())},
                        "region": {"startLine": max(1, r.location.line)},
                    },
                    "message": {"text": r.message},
                }
                for i, r in enumerate(f.related)
            ]
        props = {}
        if loc.cell is not None:
            props["cell"] = loc.cell
        if f.count > 1:
            props["count"] = f.count
        if f.test_id:
            props["test"] = f.test_id
        if props:
            result["properties"] = props
        results.append(result)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "graphlint",
                        "version": __version__,
                        "informationUri": _INFO_URI,
                        "rules": descriptors,
                    }
                },
                "results": results,
            }
        ],
    }
    if statistics:
        doc["runs"][0]["properties"] = {"statistics": _statistics_list(findings)}
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"


def _gh_escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def as_github(findings: list[Finding], rules: dict | None = None, *, statistics: bool = False, **_) -> str:
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
        counts = "\n".join(f"{s['count']:5d} {s['code']} {s['name']}" for s in _statistics_list(findings))
        lines.append(f"::notice title=graphlint statistics::{_gh_escape(counts)}")
    return "\n".join(lines) + ("\n" if lines else "")


FORMATTERS: dict[str, Callable[..., str]] = {
    "text": text,
    "json": as_json,
    "sarif": as_sarif,
    "github": as_github,
}
#: The ``--format`` names.
FORMATS = tuple(FORMATTERS)


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
    lines = []
    for r in rules:
        engines = "+".join(r.engines)
        frameworks = "+".join(r.frameworks) or "any"
        lines.append(f"{r.code}  {r.name:<26} {r.severity.value:<8} {engines:<15} {frameworks:<15} {r.summary}")
    return "".join(line + "\n" for line in lines)


def rule_doc(rule) -> str:
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


def render(fmt: str, findings: Iterable[Finding], rules: dict | None = None, **kwargs) -> str:
    """``findings`` in format ``fmt``; ``rules``: code → :class:`graphlint.registry.RuleDescription`."""
    return FORMATTERS[fmt](list(findings), rules, **kwargs)
