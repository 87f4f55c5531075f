"""A notebook's JSON text, edited in place: where each cell's ``source`` lies in it, and the
``source`` written back with a fix in the layout it had — every string no edit touches, and
every other byte of the file, stays as it was (graphlint.static.notebook reads the cells)."""

from __future__ import annotations

import bisect
import json
import re


def source_spans(text: str, key: str, wanted: set[int]) -> dict[int, tuple[int, int, list | None]]:
    """For each wanted cell index: the span of its ``source`` value in ``text`` and, for a
    list, the spans of its strings."""
    top = _scan(text, _skip(text, 0))[1]
    if "cells" in top:
        cells = top["cells"][2]
    else:  # nbformat 3: worksheets[*].cells, counted across worksheets
        cells = []
        for _, _, sheet in top["worksheets"][2]:
            if isinstance(sheet, dict) and "cells" in sheet:
                cells.extend(sheet["cells"][2])
    out: dict[int, tuple[int, int, list | None]] = {}
    for index in wanted:
        begin, end, value = cells[index][2][key]
        out[index] = (begin, end, value if isinstance(value, list) else None)
    return out


_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")


def _skip(text: str, i: int) -> int:
    return _WS.match(text, i).end()  # type: ignore[union-attr]  # \s* matches anywhere


def _scan(text: str, i: int):
    """Parse the JSON value at ``i``: ``(end, node)`` where an object is ``{key: (start, end,
    node)}``, an array ``[(start, end, node), ...]`` and a scalar ``None``."""
    ch = text[i]
    if ch == "{":
        node: dict = {}
        i = _skip(text, i + 1)
        if text[i] == "}":
            return i + 1, node
        while True:
            key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]  # public, not in typeshed
            i = _skip(text, i)
            i = _skip(text, i + 1)  # the colon
            start = i
            i, value = _scan(text, i)
            node[key] = (start, i, value)
            i = _skip(text, i)
            if text[i] == "}":
                return i + 1, node
            i = _skip(text, i + 1)  # the comma
    if ch == "[":
        items: list = []
        i = _skip(text, i + 1)
        if text[i] == "]":
            return i + 1, items
        while True:
            begin = i
            i, value = _scan(text, i)
            items.append((begin, i, value))
            i = _skip(text, i)
            if text[i] == "]":
                return i + 1, items
            i = _skip(text, i + 1)
    if ch == '"':
        return json.decoder.scanstring(text, i + 1)[1], None  # type: ignore[attr-defined]  # as above
    return _DECODER.raw_decode(text, i)[1], None


def _dump(value: str, like: str | None) -> str:
    """``value`` as a JSON string, escaped as ``like`` (the string it replaces) was."""
    if like is not None and not like.isascii():
        return json.dumps(value, ensure_ascii=False)
    if like is not None and "\\u" in like:
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def edited_source(raw: str, items, begin: int, source: str, edits: list[tuple[int, int, str]]) -> str:
    """The JSON text of a cell's ``source`` with ``edits`` (offsets into ``source``) applied,
    in the layout of ``raw``, its JSON text now (at ``begin`` in the file; ``items``: the
    spans of its strings, None for one string)."""
    if items is None:
        for start, end, replacement in sorted(edits, reverse=True):
            source = source[:start] + replacement + source[end:]
        return _dump(source, raw)
    return _dump_lines(raw, items, begin, edits)


def _dump_lines(raw: str, items, begin: int, edits: list[tuple[int, int, str]]) -> str:
    """The JSON text of a cell's source held as a list of strings (``raw``, its strings' spans
    ``items``), with ``edits`` (offsets into the joined source) applied string by string: every
    string no edit touches keeps its JSON text, and no string is split anew (a ``\\f`` or a
    ``\\u2028`` inside one stays inside it). An edit across strings makes them one."""
    olds = [raw[s - begin : e - begin] for s, e, _ in items]
    loaded: list[str] = [json.loads(t) for t in olds]
    starts = []
    offset = 0
    for string in loaded:
        starts.append(offset)
        offset += len(string)
    texts: list[str | None] = list(loaded)  # None: joined into an earlier string
    for start, end, replacement in sorted(edits, reverse=True):  # later first: offsets stay valid
        first = max(0, bisect.bisect_right(starts, start) - 1)
        last = max(first, bisect.bisect_right(starts, max(start, end - 1)) - 1)
        head = (texts[first] or "")[: start - starts[first]]
        tail = (texts[last] or "")[end - starts[last] :]
        texts[first] = head + replacement + tail
        for i in range(first + 1, last + 1):
            texts[i] = None  # joined into the first
    parts, last_end = [], 0
    for (s, e, _), text, old in zip(items, texts, olds):
        if text is None:  # its separator and itself go
            last_end = e - begin
            continue
        parts.append(raw[last_end : s - begin])
        parts.append(old if json.loads(old) == text else _dump(text, old))
        last_end = e - begin
    return "".join(parts) + raw[last_end:]
