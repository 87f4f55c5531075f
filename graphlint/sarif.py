"""The SARIF 2.1.0 reporter, as GitHub code scanning reads it: every rule's metadata, each
finding's region (start and, where known, end), its related sites, its fix as a SARIF ``fixes``
object, and a ``partialFingerprints`` entry that does not change when lines are added above it.

Paths inside the current folder are relative URIs (``src/model.py``) resolved against
``originalUriBaseIds.SRCROOT``; paths outside it are absolute ``file://`` URIs. A file name's
bytes are percent-encoded (a POSIX ``back\\slash.py`` is ``back%5Cslash.py``, never the URI of
``back/slash.py``). Only formats: what it needs comes in as findings, rule descriptions and
fixes (:class:`graphlint.fix_view.TextEdit`).
"""

from __future__ import annotations

import linecache
import os
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from graphlint import __version__
from graphlint.findings import Finding

if TYPE_CHECKING:
    from graphlint.fix_view import TextEdit
    from graphlint.registry import RuleDescription

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: The rule documentation's place in the project's repository (it has no public home yet).
RULES_DOC = "docs/rules/"
FINGERPRINT = "graphlint/v1"


def uri(path: str, base: str | None = None) -> str:
    """``path`` as a URI reference: relative to ``base`` (default: the current folder) when
    inside it, else an absolute ``file://`` URI; the name's own bytes percent-encoded."""
    from urllib.parse import quote

    base = base or os.getcwd()
    absolute = os.path.abspath(path)
    try:
        rel = os.path.relpath(absolute, base)
    except ValueError:  # another drive (Windows)
        rel = os.pardir
    outside = rel == os.pardir or rel.startswith(os.pardir + os.sep)
    name = absolute if outside else rel
    if os.sep == "\\":  # Windows: the separator; on POSIX a backslash is part of a name
        name = name.replace("\\", "/")
    # the file name's own bytes (a non-UTF-8 name arrives surrogate-escaped); a colon stays
    # encoded so that `a:b.py` never reads as a scheme
    encoded = quote(name.encode("utf-8", "surrogateescape"), safe="/._-~")
    if outside:
        return "file://" + (encoded if encoded.startswith("/") else "/" + encoded)
    return encoded


def _folder_uri(folder: str) -> str:
    from urllib.parse import quote

    name = folder.replace("\\", "/") if os.sep == "\\" else folder
    encoded = quote(name.encode("utf-8", "surrogateescape"), safe="/._-~").rstrip("/")
    return "file://" + ("" if encoded.startswith("/") else "/") + encoded + "/"


def _artifact(path: str) -> dict:
    location = {"uri": uri(path)}
    if not location["uri"].startswith("file://"):
        location["uriBaseId"] = "SRCROOT"
    return location


def fingerprint(finding: Finding, line_text: Callable[[str, int], str], seen: dict) -> str:
    """The code, the path, the text of the finding's line (whitespace-stripped) and which
    occurrence of that text it is in the file: an edit above the finding leaves it as it was,
    an edit of the line itself makes it another finding."""
    import hashlib

    loc = finding.location
    text = " ".join(line_text(loc.path, loc.line).split())
    key = (finding.code, uri(loc.path), loc.cell, text)
    seen[key] = seen.get(key, 0) + 1
    raw = "\0".join([finding.code, key[1], str(loc.cell or ""), text, str(seen[key])])
    return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _file_lines() -> Callable[[str, int], str]:
    """``line_text(path, line)`` from the files as they are now (linecache re-checked once per
    file: a long-lived process may have read an older version)."""
    checked: set[str] = set()

    def line_text(path: str, line: int) -> str:
        if path not in checked:
            checked.add(path)
            linecache.checkcache(path)
        return linecache.getline(path, line)

    return line_text


def _region(line: int, column: int, end_line: int | None = None, end_column: int | None = None) -> dict[str, int]:
    region = {"startLine": max(1, line), "startColumn": max(1, column)}
    if end_line:
        region["endLine"] = max(region["startLine"], end_line)
        if end_column:
            region["endColumn"] = max(1, end_column)
    return region


def _descriptor(code: str, rule: RuleDescription | None, sample: Finding | None) -> dict[str, Any]:
    """``rule``'s description (a RuleDescription), or one made from a finding of ``code``
    (``sample``) when no rule is known by that code."""
    if rule:
        name, summary, docs, severity = rule.name, rule.summary or rule.name, rule.docs, rule.severity.value
    else:
        assert sample is not None, "a code is used by a finding or known as a rule"
        name, summary, docs, severity = sample.name, sample.message or sample.name, {}, sample.severity.value
    help_md = "\n\n".join(f"## {k}\n{v}" for k, v in docs.items() if k) or summary
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": docs.get("What it does", summary)},
        "help": {"text": help_md, "markdown": help_md},
        "helpUri": f"{RULES_DOC}{code}.md",
        "defaultConfiguration": {"level": severity},
        "properties": {"tags": ["tensorflow", "performance"]},
    }


def _fixes(finding: Finding, edits: Sequence[TextEdit] | None) -> list[dict[str, Any]]:
    if not edits:
        return []
    replacements = [
        {
            "deletedRegion": _region(e.line, e.column, e.end_line, e.end_column),
            "insertedContent": {"text": e.content},
        }
        for e in edits
    ]
    return [
        {
            "description": {"text": finding.fix or f"fix {finding.code}"},
            "artifactChanges": [{"artifactLocation": _artifact(finding.location.path), "replacements": replacements}],
        }
    ]


def as_sarif(findings: list[Finding], rules: Mapping[str, RuleDescription] | None = None, *, statistics: bool = False,
             fixes: Mapping[Finding, Any] | None = None, line_text: Callable[[str, int], str] | None = None,
             **_: Any) -> str:
    """SARIF 2.1.0 as GitHub code scanning accepts it. In a notebook, ``startLine`` is the line
    within the cell and ``properties.cell`` the cell; statistics go in the run's properties.
    ``rules`` maps codes to :class:`graphlint.registry.RuleDescription` (the rule metadata),
    ``fixes`` findings to their edits; ``line_text(path, line)`` (default: the file's line)
    feeds the fingerprints."""
    import json

    from graphlint.report import statistics_list

    fixes = fixes or {}
    line_text = line_text or _file_lines()
    rules = dict(rules or {})
    used = sorted({f.code for f in findings} | set(rules))
    index = {code: i for i, code in enumerate(used)}
    descriptors = [_descriptor(code, rules.get(code), next((f for f in findings if f.code == code), None)) for code in used]
    results: list[dict] = []
    seen: dict = {}
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
                        "artifactLocation": _artifact(loc.path),
                        "region": _region(loc.line, loc.column, getattr(loc, "end_line", None), getattr(loc, "end_column", None)),
                    }
                }
            ],
            "partialFingerprints": {FINGERPRINT: fingerprint(f, line_text, seen)},
        }
        if f.related:
            result["relatedLocations"] = [
                {
                    "id": i,
                    "physicalLocation": {
                        "artifactLocation": _artifact(r.location.path),
                        "region": {"startLine": max(1, r.location.line)},
                    },
                    "message": {"text": r.message},
                }
                for i, r in enumerate(f.related)
            ]
        sarif_fixes = _fixes(f, fixes.get(f))
        if sarif_fixes:
            result["fixes"] = sarif_fixes
        props: dict[str, object] = {}
        if loc.cell is not None:
            props["cell"] = loc.cell
        if f.count > 1:
            props["count"] = f.count
        if f.test_id:
            props["test"] = f.test_id
        if props:
            result["properties"] = props
        results.append(result)
    run = {
        "tool": {"driver": {"name": "graphlint", "version": __version__, "rules": descriptors}},
        "originalUriBaseIds": {"SRCROOT": {"uri": _folder_uri(os.getcwd())}},
        "results": results,
    }
    if statistics:
        run["properties"] = {"statistics": statistics_list(findings)}
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"
