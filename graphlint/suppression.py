"""What the user turned off, for both engines: ``# noqa`` comments, ``--select``/``--ignore``
and per-file ignores.

``# noqa`` on a finding's line silences every code, ``# noqa: GL101, GL3`` the codes (or
prefixes) it names; a line ``# graphlint: noqa[: codes]`` of its own silences a whole file (the
static engine reads it; at runtime a file is not read whole). Matching is case-insensitive,
as flake8's and ruff's.
"""

from __future__ import annotations

import re
from typing import Iterable

from graphlint.config import Config
from graphlint.findings import Finding

_CODES = r"(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)"
NOQA = re.compile(r"#\s*noqa(?::\s*" + _CODES + r")?", re.I)
FILE_NOQA = re.compile(r"^[ \t]*#[ \t]*graphlint:[ \t]*noqa(?::[ \t]*" + _CODES + r")?[ \t]*$", re.M | re.I)
_SPLIT = re.compile(r"[\s,]+")
_LINES = re.compile(r"\r\n|\r|\n")


def _codes(match: re.Match) -> list[str]:
    """The codes a noqa comment names, upper-case; ``[]`` for a bare ``# noqa`` (every code)."""
    return [c.upper() for c in _SPLIT.split(match.group("codes") or "") if c]


def line_suppresses(line: str, code: str) -> bool:
    """Whether ``line`` (a source line) carries a ``# noqa`` that covers ``code``."""
    if "#" not in line:
        return False
    match = NOQA.search(line)
    if match is None:
        return False
    codes = _codes(match)
    return not codes or any(code.startswith(c) for c in codes)


def without_noqa(findings: list[Finding], text: str) -> list[Finding]:
    """``findings`` of the source ``text`` minus those its ``# noqa`` comments (on their line)
    and ``# graphlint: noqa`` lines (the whole file) silence."""
    if not findings:
        return findings
    file_codes: list[str] = []
    for match in FILE_NOQA.finditer(text):
        codes = _codes(match)
        if not codes:
            return []
        file_codes += codes
    if file_codes:
        findings = [f for f in findings if not any(f.code.startswith(c) for c in file_codes)]
    if not findings or "noqa" not in text.lower():
        return findings
    lines = _LINES.split(text)
    return [
        f
        for f in findings
        if not (0 < f.location.line <= len(lines) and line_suppresses(lines[f.location.line - 1], f.code))
    ]


def selected(config: Config, finding: Finding) -> bool:
    """Whether ``--select``/``--ignore`` and the per-file ignores let ``finding`` through."""
    return config.is_selected(finding.code) and not config.ignored_for_path(finding.code, finding.location.path)


def only_selected(config: Config, findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if selected(config, f)]
