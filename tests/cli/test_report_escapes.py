"""The text reports escape every control character of a path or a message (``\\n``, ``\\x1b``,
U+2028), so that no file name can forge a finding line or reach the terminal as an escape
sequence, and leave every other character as it is: checked for each code point up to
U+3000 and a few beyond, one finding each."""

from __future__ import annotations

import pytest

from graphlint.findings import Finding, Location, Severity
from graphlint.report import render

CONTROL = {*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029}
CODE_POINTS = [*range(0x3000), 0xFEFF, 0xFFFD, 0x1F600, 0xE0001, 0x10FFFF]


def shown(char: str) -> str:
    return repr(char)[1:-1] if ord(char) in CONTROL else char


@pytest.mark.parametrize("fmt", ["full", "concise"])
def test_each_control_character_is_escaped_and_nothing_else(fmt):
    chars = [chr(c) for c in CODE_POINTS if not 0xD800 <= c < 0xE000]
    findings = [
        Finding("GL101", "graph-rebuilt", Severity.WARNING, f"<{c}>", Location(f"p{c}.py", n + 1, 1))
        for n, c in enumerate(chars)
    ]
    lines = render(fmt, findings, quiet=True).split("\n")
    heads = [line for line in lines if line.startswith("p")]
    assert len(heads) == len(chars)
    for char, line in zip(chars, heads):
        assert line.startswith(f"p{shown(char)}.py:") and f"<{shown(char)}>" in line, (hex(ord(char)), line)
