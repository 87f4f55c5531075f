"""What the user turned off, for both engines: ``# noqa`` comments, ``--select``/``--ignore``
and per-file ignores.

``# noqa`` on a finding's line silences every code, ``# noqa: GL101, GL3`` the codes (or
prefixes) it names, separated by commas or spaces (text may follow the codes); a line
``# graphlint: noqa[: codes]`` of its own silences a whole file (the static engine reads it;
at runtime a file is not read whole). Matching is case-insensitive, as flake8's and ruff's.

A directive whose colon is followed by no code (``# noqa: session-churn``, ``# noqa:XY``) or
by codes run together (``# noqa: GL103GL301``) is *invalid*: it silences nothing, and
``graphlint check`` warns about it (ruff: "Invalid `# noqa` directive"). ``GL002``
(unused-noqa, off by default, as ruff's RUF100) reports directives that silence nothing.
"""

from __future__ import annotations

import os
import re
from typing import Iterable, NamedTuple

from graphlint.config import Config
from graphlint.findings import Finding, Location, Severity

# The patterns are compiled at their first use (``re``'s own cache), not at import: most files
# have no ``noqa`` at all, and compiling these six costs ~4M instructions, 1% of a one-file check.
_DIRECTIVE = r"(?i)#[ \t]*noqa(?![\w-])(?P<colon>[ \t]*:)?(?P<rest>[^#\r\n]*)"
_FILE_DIRECTIVE = r"(?im)^[ \t]*#[ \t]*graphlint:[ \t]*noqa(?![\w-])(?P<colon>[ \t]*:)?(?P<rest>[^\r\n]*)$"
_CODE = r"(?i)[A-Z]+[0-9]+"
_CODE_START = r"(?i)[A-Z]+[0-9]"
_SPLIT = r"[\s,]+"
_LINES = r"\r\n|\r|\n"
INVALID = "expected `# noqa` or `# noqa: CODE[, CODE...]` with rule codes (e.g. `# noqa: GL301`)"

UNUSED_NOQA_CODE = "GL002"
UNUSED_NOQA_NAME = "unused-noqa"
UNUSED_NOQA_FIX = "Remove the `noqa` directive, or the codes in it that no longer silence anything."


class Directive(NamedTuple):
    """One ``noqa`` comment: ``codes`` (upper-case; empty: every code), or ``invalid`` (why).
    (A named tuple: a frozen dataclass costs ~3M instructions more to create, at every start.)"""

    column: int  # 1-based, of the `#`
    codes: tuple[str, ...] = ()
    invalid: str = ""

    def covers(self, code: str) -> bool:
        return not self.invalid and (not self.codes or any(code.startswith(c) for c in self.codes))


def _parse(match: re.Match) -> Directive:
    column = match.start() + 1
    if match.group("colon") is None:
        return Directive(column)
    codes = []
    for token in re.split(_SPLIT, match.group("rest").strip()):
        if not token:
            continue
        if re.fullmatch(_CODE, token):
            codes.append(token.upper())
        elif codes and not re.match(_CODE_START, token):
            break  # a code, then the reason in words
        else:
            return Directive(column, invalid=INVALID)
    return Directive(column, tuple(codes)) if codes else Directive(column, invalid=INVALID)


def directive(line: str) -> Directive | None:
    """The ``# noqa`` directive of a source line's comment, if it has one (``"# noqa"`` in a
    string is no comment)."""
    if "#" not in line:
        return None
    start = comment_start(line)
    if start is None:
        return None
    match = re.compile(_DIRECTIVE).search(line, start)
    return _parse(match) if match is not None else None


def comment_start(line: str) -> int | None:
    """Where the comment of a source line starts: its first ``#`` outside a string literal,
    the line read on its own. A line that ends inside a string may have begun in one (the last
    line of a multi-line string, where a comment can go): its first ``#``, as it was."""
    quote = ""
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
        elif ch == "#":
            return i
        elif ch in "\"'":
            quote = line[i : i + 3] if line[i : i + 3] in ('"""', "'''") else ch
            i += len(quote)
            continue
        i += 1
    if quote:
        found = line.find("#")
        return found if found >= 0 else None
    return None


def line_suppresses(line: str, code: str) -> bool:
    """Whether ``line`` (a source line) carries a valid ``# noqa`` that covers ``code``."""
    found = directive(line)
    return found is not None and found.covers(code)


def _file_directives(text: str) -> list[tuple[int, Directive]]:
    """The ``# graphlint: noqa`` lines of ``text`` that are comments: the same words in a
    string (a docstring telling how to silence graphlint) silence nothing."""
    out = []
    comments: set[int] | None = None
    for match in re.finditer(_FILE_DIRECTIVE, text):
        line = text.count("\n", 0, match.start()) + 1
        if comments is None:
            comments = _comment_lines(text)  # (only for a file that has such a line: a few)
        if line not in comments:
            continue
        found = _parse(match)
        out.append((line, Directive(1, found.codes, found.invalid)))
    return out


def _comment_lines(text: str) -> set[int]:
    """The lines a comment of ``text`` starts on (a text that does not tokenize: none)."""
    import io
    import tokenize

    lines = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                lines.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        pass
    return lines


def without_noqa(findings: list[Finding], text: str, path: str | None = None, *, report_unused: bool = False) -> list[Finding]:
    """``findings`` of the source ``text`` minus those its ``# noqa`` comments (on their line)
    and ``# graphlint: noqa`` lines (the whole file) silence; with ``report_unused``, plus a
    GL002 finding for each directive (or code in one) that silences nothing."""
    if not findings and not report_unused:
        return findings
    if "noqa" not in text.lower():
        return findings
    file_level = [(line, d) for line, d in _file_directives(text) if not d.invalid]
    used: set[tuple[int, str]] = set()  # (line, code of the directive or "") that silenced something
    lines = re.split(_LINES, text)
    kept = []
    for f in findings:
        whole = next((d for _, d in file_level if d.covers(f.code)), None)
        if whole is not None:
            line = next(n for n, d in file_level if d is whole)
            used.add((line, _matching(whole, f.code)))
            continue
        n = f.location.line
        found = directive(lines[n - 1]) if 0 < n <= len(lines) else None
        if found is not None and found.covers(f.code):
            used.add((n, _matching(found, f.code)))
            continue
        kept.append(f)
    if report_unused:
        kept += _unused(text, lines, file_level, used, path or "<stdin>")
    return kept


def _matching(found: Directive, code: str) -> str:
    return next((c for c in found.codes if code.startswith(c)), "")


def _unused(
    text: str, lines: list[str], file_level: list[tuple[int, Directive]], used: set[tuple[int, str]], path: str
) -> list[Finding]:
    out = []
    candidates = [(line, d) for line, d in file_level]
    for n, line in enumerate(lines, 1):
        if "noqa" in line.lower():
            found = directive(line)
            if found is not None and not found.invalid and not any(line_no == n for line_no, _ in file_level):
                candidates.append((n, found))
    for n, found in candidates:
        if found.codes:
            unused = [c for c in found.codes if (n, c) not in used]
            if not unused:
                continue
            what = "unused: " + ", ".join(f"`{c}`" for c in unused)
        elif (n, "") in used:
            continue
        else:
            what = "it silences nothing"
        out.append(
            Finding(
                code=UNUSED_NOQA_CODE,
                name=UNUSED_NOQA_NAME,
                severity=Severity.WARNING,
                message=f"unused `noqa` directive ({what})",
                location=Location(path, n, found.column),
                fix=UNUSED_NOQA_FIX,
            )
        )
    return out


def invalid_directives(path: str, data: bytes | None = None) -> list[str]:
    """Warnings for the invalid ``noqa`` directives of the file ``path`` (or of ``data``, its
    bytes): ``graphlint: warning: Invalid `# noqa` directive at PATH:LINE:COL: ...``."""
    from graphlint.findings import Location as Where

    import stat

    try:
        if data is None:
            if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block
                return []
            with open(path, "rb") as fh:
                data = fh.read(10 * 1024 * 1024)
    except OSError:
        return []
    if b"noqa" not in data.lower():
        return []
    shown = Where(path, 1).display_path()
    out = []
    for where, text in _texts(path, data):
        for n, line in enumerate(re.split(_LINES, text), 1):
            if "noqa" not in line.lower():
                continue
            file_level = re.match(_FILE_DIRECTIVE, line)
            found = Directive(1, invalid=_parse(file_level).invalid) if file_level else directive(line)
            if found is not None and found.invalid:
                out.append(
                    f"graphlint: warning: Invalid `# noqa` directive at {shown}:{where}{n}:{found.column}: "
                    f"{found.invalid}; it silences nothing"
                )
    return out


def _texts(path: str, data: bytes) -> list[tuple[str, str]]:
    """``(place prefix, source)``: the file, or each code cell of a notebook (``cell 3:``)."""
    if path.endswith(".ipynb"):
        from graphlint.static.notebook import NotebookError, read_notebook

        try:
            notebook = read_notebook(data)
        except NotebookError:
            return []
        return [(f"cell {c.number}:", c.source) for c in notebook.cells] if notebook is not None else []
    from graphlint.reading import decode_source

    try:
        return [("", decode_source(data)[1])]
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return []


def selected(config: Config, finding: Finding) -> bool:
    """Whether ``--select``/``--ignore`` and the per-file ignores let ``finding`` through."""
    return config.is_selected(finding.code) and not config.ignored_for_path(finding.code, finding.location.path)


def only_selected(config: Config, findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if selected(config, f)]
