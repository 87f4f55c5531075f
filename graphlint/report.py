"""Reporters: they only format findings (text, json, sarif, github)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Callable, Iterable

from graphlint import __version__
from graphlint.findings import Finding

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_INFO_URI = "https://github.com/graphlint/graphlint#rules"


def _count_suffix(f: Finding) -> str:
    return f" (×{f.count})" if f.count > 1 else ""


def text(findings: list[Finding], rules: dict | None = None, *, statistics: bool = False) -> str:
    """ruff-like: ``path:line:col: CODE message``, related sites and the fix indented."""
    lines = []
    for f in findings:
        loc = f.location
        test = f" [{f.test_id}]" if f.test_id else ""
        lines.append(
            f"{loc.display_path()}:{loc.line}:{loc.column}: {f.code} {f.message}"
            f"{_count_suffix(f)}{test}"
        )
        for rel in f.related:
            lines.append(f"    {rel.location.display_path()}:{rel.location.line}: {rel.message}")
        if f.fix:
            lines.append(f"    fix: {f.fix}")
    if statistics and findings:
        lines.append("")
        by_code = Counter(f.code for f in findings)
        names = {f.code: f.name for f in findings}
        for code, n in by_code.most_common():
            lines.append(f"{n:5d}\t{code}\t{names[code]}")
    lines.append(_summary(findings))
    return "\n".join(lines) + "\n"


def _summary(findings: list[Finding]) -> str:
    if not findings:
        return "graphlint: no findings."
    errors = sum(1 for f in findings if f.severity.value == "error")
    warnings = len(findings) - errors
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' * (errors != 1)}")
    if warnings:
        parts.append(f"{warnings} warning{'s' * (warnings != 1)}")
    return f"graphlint: found {len(findings)} finding{'s' * (len(findings) != 1)} ({', '.join(parts)})."


def as_dict(findings: list[Finding]) -> dict:
    """The JSON document: ``{"version": 1, "findings": [...], "summary": {...}}``."""
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
        if f.count > 1:
            item["count"] = f.count
        if f.test_id:
            item["test"] = f.test_id
        items.append(item)
    by_code = dict(sorted(Counter(f.code for f in findings).items()))
    return {"version": 1, "findings": items, "summary": {"findings": len(findings), "by_code": by_code}}


def as_json(findings: list[Finding], rules: dict | None = None, **_) -> str:
    return json.dumps(as_dict(findings), indent=2, ensure_ascii=True) + "\n"


def _uri(path: str) -> str:
    from urllib.parse import quote

    # the file name's own bytes (a non-UTF-8 name arrives surrogate-escaped), percent-encoded
    return quote(path.replace("\\", "/").encode("utf-8", "surrogateescape"), safe="/:._-~")


def as_sarif(findings: list[Finding], rules: dict | None = None, **_) -> str:
    """SARIF 2.1.0 as GitHub code scanning accepts it."""
    rules = dict(rules or {})
    used = sorted({f.code for f in findings} | set(rules))
    index = {code: i for i, code in enumerate(used)}
    descriptors = []
    for code in used:
        cls = rules.get(code)
        sample = next((f for f in findings if f.code == code), None)
        name = cls.name if cls else sample.name
        summary = (cls.summary if cls else sample.message) or name
        docs = cls.docs() if cls else {}
        help_md = "\n\n".join(f"## {k}\n{v}" for k, v in docs.items() if k) or summary
        severity = (cls.severity if cls else sample.severity).value
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
            "partialFingerprints": {"graphlint/v1": f"{f.code}:{loc.display_path()}:{loc.line}"},
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
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"


def _gh_escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def as_github(findings: list[Finding], rules: dict | None = None, **_) -> str:
    """GitHub Actions workflow commands: ``::warning file=...,line=...::message``."""
    lines = []
    for f in findings:
        loc = f.location
        level = "error" if f.severity.value == "error" else "warning"
        body = f"{f.message}{_count_suffix(f)}"
        for rel in f.related:
            body += f"\n{rel.location.display_path()}:{rel.location.line}: {rel.message}"
        if f.fix:
            body += f"\nfix: {f.fix}"
        lines.append(
            f"::{level} file={_gh_escape(loc.display_path(), prop=True)},line={loc.line},"
            f"col={loc.column},title={_gh_escape(f'{f.code} {f.name}', prop=True)}::{_gh_escape(body)}"
        )
    return "\n".join(lines) + ("\n" if lines else "")


FORMATTERS: dict[str, Callable[..., str]] = {
    "text": text,
    "json": as_json,
    "sarif": as_sarif,
    "github": as_github,
}


def render(fmt: str, findings: Iterable[Finding], rules: dict | None = None, **kwargs) -> str:
    return FORMATTERS[fmt](list(findings), rules, **kwargs)
