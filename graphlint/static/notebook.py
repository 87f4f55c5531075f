"""Jupyter notebooks (``.ipynb``) for ``graphlint check``: the code cells as one module.

The code cells, in order, are joined into one Python module; IPython's own syntax (line
magics ``%time``, shell escapes ``!pip``, ``x = !ls``, help ``obj?``, and cells that start with a
cell magic such as ``%%bash``) is blanked line for line, so every other line keeps its number
and column. A line of the module maps back to ``(cell, line in the cell)``; cells are numbered
as ruff numbers them: every cell (markdown too) in notebook order, from 1, so that ``cell 4``
is the fourth cell on screen. :meth:`Notebook.apply` writes fixes back into the
changed cells' ``source`` only (graphlint.static.notebook_json): every other byte of the
file stays as it was.

Nothing here imports IPython or Jupyter, and nothing is executed.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field, replace

from graphlint.static.notebook_json import edited_source, source_spans

SUFFIX = ".ipynb"
#: Cell magics whose body is Python: only their first line is blanked.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: "line 418" in a finding's text; a text naming a ``.py`` file speaks of that file's lines
_LINE_REF = re.compile(r"\bline (\d+)\b")
_NAMES_A_FILE = re.compile(r"\w\.py\b")
# `%magic`, `!cmd`, `?obj`, `obj?`, `x = !cmd`, `x = %magic` (IPython's escapes and help)
_ESCAPE = re.compile(r"^[ \t]*(?:[%!?]|[\w.]+\?\??[ \t]*$|[\w.,()\[\] \t]+=[ \t]*[%!])")
#: The same at the start of any line of a cell: a cell without one has no escape to blank.
_ANY_ESCAPE = re.compile(r"(?:^|(?<=[\r\n]))[ \t]*(?:[%!?]|[\w.]+\?\??[ \t]*(?=[\r\n]|\Z)|[\w.,()\[\] \t]+=[ \t]*[%!])")


class NotebookError(ValueError):
    """The file is not a notebook graphlint can read: ``message`` at JSON ``line``/``column``."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.line, self.column = line, column


@dataclass
class Cell:
    """One code cell: its index among all cells, its number (index + 1, as ruff), where it starts
    in the module (0-based line), and its source as the notebook holds it."""

    index: int
    number: int
    start: int
    source: str


@dataclass
class Notebook:
    source: str
    cells: list[Cell] = field(default_factory=list)
    key: str = "source"  # "input" in nbformat 3
    encoding: str = "utf-8"  # "utf-8-sig" with a byte-order mark
    digest: str = ""  # of the file as read (the engine's --fix checks it is unchanged)
    python2: bool = False  # its kernel is Python 2
    _starts: list[int] = field(default_factory=list, repr=False)

    # -- lines ----------------------------------------------------------------------------------
    def cell_at(self, line: int) -> Cell | None:
        """The cell holding 1-based module ``line``."""
        i = bisect.bisect_right(self._starts, line - 1) - 1
        return self.cells[i] if i >= 0 else None

    def locate(self, location):
        """A module :class:`~graphlint.findings.Location` as ``cell N``, line within it."""
        if location.cell is not None:
            return location
        cell = self.cell_at(location.line)
        if cell is None:
            return location
        end = location.end_line
        in_cell = end is not None and self.cell_at(end) is cell
        return replace(location, line=location.line - cell.start, cell=cell.number,
                       end_line=end - cell.start if in_cell else None,
                       end_column=location.end_column if in_cell else None)

    def to_cells(self, findings: list) -> list:
        """Findings (and their related sites) located by cell, and the lines their texts name
        ("called in a loop (line 418)") as the cell and line the user sees."""
        out = []
        for f in findings:
            related = tuple(
                replace(r, location=self.locate(r.location), message=self._cell_lines(r.message)) for r in f.related
            )
            f = replace(f, location=self.locate(f.location), related=related,
                        message=self._cell_lines(f.message), fix=self._cell_lines(f.fix))
            if self.python2 and f.code == "GL001" and f.message.startswith("SyntaxError"):
                f = replace(f, message=f"{f.message} (the notebook's kernel is Python 2; graphlint reads Python 3)")
            out.append(f)
        return out

    def _cell_lines(self, text: str) -> str:
        """``text`` with each "line N" of the module of cells as "cell C, line L". A text that
        names a Python file ("a loop of train.py (line 12)") speaks of that file's lines: kept."""
        if "line " not in text or _NAMES_A_FILE.search(text):
            return text

        def in_cell(match: re.Match[str]) -> str:
            line = int(match.group(1))
            cell = self.cell_at(line)
            return match.group(0) if cell is None else f"cell {cell.number}, line {line - cell.start}"

        return _LINE_REF.sub(in_cell, text)

    # -- cells that do not parse ----------------------------------------------------------------
    def cell_texts(self) -> list[str]:
        """Each code cell's lines of :attr:`source` alone, after as many blank lines as come
        before it: read on its own, a cell's lines and columns are the module's."""
        lines, spans = self._cell_spans()
        return ["\n" * start + "".join(f"{line}\n" for line in lines[start:end]) for start, end in spans]

    def without_cells(self, indices) -> Notebook:
        """This notebook with the module lines of the cells at ``indices`` (of :attr:`cells`)
        blank: Jupyter runs every other cell, so every other cell is checked, each line where
        it was."""
        lines, spans = self._cell_spans()
        for i in indices:
            start, end = spans[i]
            lines[start:end] = [""] * (end - start)
        return replace(self, source="".join(f"{line}\n" for line in lines))

    def _cell_spans(self) -> tuple[list[str], list[tuple[int, int]]]:
        """The lines of :attr:`source` and each code cell's (first, end) among them."""
        lines = self.source.split("\n")[:-1]  # (each line of the source ends in "\n")
        ends = [cell.start for cell in self.cells[1:]] + [len(lines)]
        return lines, [(cell.start, end) for cell, end in zip(self.cells, ends)]

    # -- fixes ----------------------------------------------------------------------------------
    def apply(self, body: str, edits: list) -> str:
        """``body`` (the notebook's JSON text, unchanged since it was read) with ``edits``
        (character offsets into :attr:`source`) applied to the cells' source; nothing else
        changes."""
        offsets = _line_offsets(self.source)
        per_cell: dict[int, list[tuple[int, int, str]]] = {}
        for edit in edits:
            cell = self.cell_at(_line_of(offsets, edit.start))
            end_cell = self.cell_at(_line_of(offsets, max(edit.start, edit.end - 1)))
            if cell is None or end_cell is not cell:
                continue  # an edit across cells is never safe
            start, end = (_cell_offset(cell, offsets, o) for o in (edit.start, edit.end))
            if start is None or end is None:
                continue
            per_cell.setdefault(cell.index, []).append((start, end, edit.replacement))
        if not per_cell:
            return body
        spans = source_spans(body, self.key, set(per_cell))
        for index in sorted(per_cell, reverse=True):  # later cells first: earlier spans stay valid
            cell = next(c for c in self.cells if c.index == index)
            begin, finish, items = spans[index]
            new = edited_source(body[begin:finish], items, begin, cell.source, per_cell[index])
            body = body[:begin] + new + body[finish:]
        return body


def in_cell(notebook: Notebook | None, line: int) -> tuple[int, int | None]:
    """``(line within its cell, cell number)`` of a 1-based line of ``notebook``'s module;
    ``(line, None)`` outside a notebook (or a cell)."""
    if notebook is None:
        return line, None
    cell = notebook.cell_at(line)
    return (line - cell.start, cell.number) if cell is not None else (line, None)


# -- reading ------------------------------------------------------------------------------------
def read_notebook(data: bytes) -> Notebook | None:
    """The notebook's code cells as one module; ``None`` for a notebook in another language.

    Raises :class:`NotebookError` for a file that is not a JSON notebook.
    """
    encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise NotebookError(f"not a notebook: cannot decode it as UTF-8 (byte {exc.start})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"not a notebook: invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise NotebookError("not a notebook: JSON nested too deeply") from None
    if not isinstance(doc, dict):
        raise NotebookError("not a notebook: the JSON document is not an object")
    language = _language(doc)
    if language is not None and language != "python":
        return None
    cells, key = _cells(doc)
    notebook = Notebook("", key=key, encoding=encoding, python2=_kernel(doc).startswith("python2"))
    parts: list[str] = []
    line = 0
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get(key, "")
        if isinstance(source, list) and all(isinstance(s, str) for s in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise NotebookError(f"not a notebook: cell {index + 1} has a {key} that is not text")
        lines = _python_lines(source)
        notebook.cells.append(Cell(index, index + 1, line, source))
        notebook._starts.append(line)
        parts.append("".join(f"{x}\n" for x in lines))
        line += len(lines)
    notebook.source = "".join(parts)
    return notebook


def _language(doc: dict) -> str | None:
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        return None
    for value in (
        (meta.get("language_info") or {}).get("name") if isinstance(meta.get("language_info"), dict) else None,
        (meta.get("kernelspec") or {}).get("language") if isinstance(meta.get("kernelspec"), dict) else None,
    ):
        if isinstance(value, str) and value:
            return value.lower()
    return None


def _kernel(doc: dict) -> str:
    meta = doc.get("metadata")
    spec = meta.get("kernelspec") if isinstance(meta, dict) else None
    name = spec.get("name") if isinstance(spec, dict) else None
    return name.lower() if isinstance(name, str) else ""


def _cells(doc: dict) -> tuple[list, str]:
    if "cells" in doc:
        cells = doc["cells"]
        if not isinstance(cells, list):
            raise NotebookError("not a notebook: `cells` is not a list")
        return cells, "source"
    worksheets = doc.get("worksheets")  # nbformat 3
    if isinstance(worksheets, list):
        return [c for w in worksheets if isinstance(w, dict) for c in (w.get("cells") or [])], "input"
    raise NotebookError("not a notebook: it has no `cells`")


def _python_lines(source: str) -> list[str]:
    """The cell's lines with IPython syntax blanked (``pass`` where a block needs a body)."""
    lines = source.split("\n") if "\r" not in source else _LINE_BREAK.split(source)
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return []
    first = lines[0].lstrip()
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if name not in PYTHON_CELL_MAGICS:
            return [""] * len(lines)
        return [""] + _blank_escapes(lines[1:])
    # every escape spells one of these (the regex tries each position of a cell without one)
    escapes = "%" in source or "!" in source or "?" in source
    return _blank_escapes(lines) if escapes and _ANY_ESCAPE.search(source) else lines


def _blank_escapes(lines: list[str]) -> list[str]:
    """Blank the lines that start a logical line with IPython syntax (and their ``\\``
    continuations); a line inside brackets or a string (``% (a, b)``) is Python."""
    out = []
    scanner = _Scanner()
    escaped = False  # the previous line was an escape ending in a backslash
    indent = ""
    for x in lines:
        if escaped or (scanner.at_start() and _ESCAPE.match(x)):
            if not escaped:
                indent = x[: len(x) - len(x.lstrip())]  # the escape's first line's
            escaped = x.rstrip().endswith("\\")
            out.append(f"{indent}pass" if indent and not escaped else "")
        else:
            scanner.feed(x)
            out.append(x)
    return out


class _Scanner:
    """Just enough of Python's tokenizer to know whether a line starts a logical line."""

    def __init__(self):
        self.depth = 0
        self.quote = ""  # the open string's quote ('"', "'", '"""' or "'''")
        self.backslash = False

    def at_start(self) -> bool:
        return self.depth == 0 and not self.quote and not self.backslash

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        depth, quote = self.depth, self.quote
        while i < n:  # from one character that matters to the next (a regex finds it)
            if quote:
                found = _IN_STRING[quote].search(line, i)
                if found is None:
                    break
                i = found.end()
                if line[found.start()] != "\\":  # the closing quote (a backslash skips one)
                    quote = ""
                continue
            found = _CODE.search(line, i)
            if found is None:
                break
            j = found.start()
            ch = line[j]
            if ch == "#":
                break
            if ch == '"' or ch == "'":
                triple = line[j : j + 3]
                quote = triple if triple in ('"""', "'''") else ch
                i = j + len(quote)
                continue
            depth = depth + 1 if ch in "([{" else max(0, depth - 1)
            i = j + 1
        self.depth = depth
        stripped = line.rstrip()
        self.backslash = stripped.endswith("\\") and not quote
        if quote in ("'", '"'):
            quote = "" if not stripped.endswith("\\") else quote  # an unterminated string ends here
        self.quote = quote


#: What changes the scanner's state outside a string, and inside one (an escape or its quote).
_CODE = re.compile(r"""[#"'()\[\]{}]""")
_IN_STRING = {q: re.compile(r"\\[\s\S]?|" + re.escape(q)) for q in ('"', "'", '"""', "'''")}


# -- positions ----------------------------------------------------------------------------------
def _line_offsets(text: str) -> list[int]:
    offsets = [0]
    for match in re.finditer("\n", text):
        offsets.append(match.end())
    return offsets


def _line_of(offsets: list[int], offset: int) -> int:
    return bisect.bisect_right(offsets, offset)


def _cell_offset(cell: Cell, offsets: list[int], offset: int) -> int | None:
    """A module character offset as an offset into the cell's original source (the line and
    column are the same; only blanked lines differ, and no edit touches them)."""
    line = _line_of(offsets, offset) - 1 - cell.start  # 0-based line in the cell
    column = offset - offsets[line + cell.start]
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(cell.source)]
    if line >= len(starts):
        return len(cell.source) if column == 0 else None
    return starts[line] + column
