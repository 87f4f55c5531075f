"""How deep a file's analysis may recurse: as deep as Python itself parses.

The model and the rules walk a tree recursively, a few frames per level of nesting. Python's
own parser, under its default recursion limit, accepts about 2,900 levels (``f(1+1+...+1)``
with 2,900 terms), and the interpreter runs such a file; under the same limit an analysis
stopped at ~300. So an analysis runs on a thread with a large stack (:func:`on_deep_stack`:
frames that recurse through C — a generator, a key function — take C stack, and the main
thread's 8 MiB would not hold them) under a raised recursion limit (:func:`deep_recursion`),
raised only while a model is built and the rules run. The parse runs under the caller's own
limit, so a file nested deeper than Python accepts is still one GL001, as before; the parser's
error there (``RecursionError``, ``MemoryError``) names no place, so :func:`too_deep_at` finds
the statement it could not take.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Callable, TypeVar

#: The recursion limit while an analysis runs: ~16 frames per level of the deepest tree the
#: parser accepts under Python's default limit (measured: the rules need ~4).
RECURSION_LIMIT = 50_000
#: The stack of the thread an analysis runs on: enough for RECURSION_LIMIT frames that each
#: recurse through C (measured: 49,000 nested generators fit in it). Memory is only taken as
#: the stack is used.
STACK_BYTES = 256 * 1024 * 1024

T = TypeVar("T")

_local = threading.local()
_start_lock = threading.Lock()
_limit_lock = threading.Lock()
_raised = 0  # analyses under way (threads may share one process: the limit is the process's)
_saved: int | None = None


def on_deep_stack(fn: Callable[..., T], *args) -> T:
    """``fn(*args)`` on a thread with a :data:`STACK_BYTES` stack: this one when it is such a
    thread, else a new one (the caller waits for it; what ``fn`` raises is raised here). Where
    no such thread can be started, on this one."""
    if getattr(_local, "deep", False):
        return fn(*args)
    outcome: dict = {}

    def run() -> None:
        _local.deep = True
        try:
            outcome["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller, whatever it is
            outcome["error"] = exc

    with _start_lock:  # threading.stack_size is the process's: set it for this thread only
        previous = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            thread = threading.Thread(target=run, name="graphlint-analysis", daemon=True)
            thread.start()
        except (RuntimeError, ValueError, MemoryError):  # no such stack here
            thread = None
        finally:
            threading.stack_size(previous)
    if thread is None:
        return fn(*args)
    thread.join()
    if "error" in outcome:
        raise outcome.pop("error")
    return outcome["value"]


@contextmanager
def deep_recursion():
    """The recursion limit raised to :data:`RECURSION_LIMIT` (never lowered) for the block;
    put back as it was once the last block of any thread ends."""
    global _raised, _saved
    with _limit_lock:
        if _raised == 0:
            _saved = sys.getrecursionlimit()
            if _saved < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
        _raised += 1
    try:
        yield
    finally:
        with _limit_lock:
            _raised -= 1
            if _raised == 0 and _saved is not None and sys.getrecursionlimit() == RECURSION_LIMIT:
                sys.setrecursionlimit(_saved)  # (a limit someone else set meanwhile is theirs)



def too_deep_at(text: str, filename: str = "<unknown>") -> tuple[int, int] | None:
    """Where ``text``, which Python's parser gave up on (``RecursionError``, ``MemoryError``:
    they name no place), is too deep: ``(line, column)``, 1-based, of the statement that the
    parser cannot take on its own in as many blocks as it stands in (each statement is parsed
    alone under ``if 1:`` headers at its blocks' indentation, the longest first: the deepest
    is the likeliest). Where none fails alone (a depth only the whole file reaches), the
    longest statement's; None when the text has no statement that tokenizes."""
    import ast

    text = text.replace("\r\n", "\n").replace("\r", "\n")  # Python's line ends: its line numbers
    lines = text.split("\n")
    statements = [(sum(len(line) for line in lines[row - 1:end]), row, column, end, indents, header)
                  for row, column, end, indents, header in _statements(text)]
    if not statements:
        return None
    statements.sort(key=lambda s: (-s[0], s[1]))
    for _, row, column, end, indents, header in statements:
        first = lines[row - 1]
        if first.startswith("elif", column):  # an `elif` alone is no statement; an `if` is
            first = first[:column] + first[column + 2:]
        body = [first, *lines[row:end]]
        if header:  # a block needs a body: one more indented than its header's first line
            body.append(first[: len(first) - len(first.lstrip())] + " pass")
        blocks = [f"{indent}if 1:" for indent in indents[:-1]]
        try:
            ast.parse("\n".join(blocks + body) + "\n", filename=filename)
        except (RecursionError, MemoryError):
            return row, column + 1
        except Exception:  # SyntaxError (a clause cut from its statement), ValueError: not this one
            continue
    _, row, column, *_ = statements[0]
    return row, column + 1


def _statements(text: str) -> list[tuple[int, int, int, tuple[str, ...], bool]]:
    """Each logical line of ``text``: (its first row, column, its last row, the indentation of
    each block it stands in and its own, whether it ends in ``:``), read by :mod:`tokenize`,
    which does not recurse (as deep as the text goes), up to where the text stops tokenizing."""
    import io
    import tokenize

    out = []
    indents = [""]
    start = last = None
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.INDENT:
                indents.append(tok.string)
            elif tok.type == tokenize.DEDENT:
                if len(indents) > 1:
                    indents.pop()
            elif tok.type == tokenize.NEWLINE:
                if start is not None and last is not None:
                    out.append((start[0], start[1], last.end[0], tuple(indents), last.string == ":"))
                start = last = None
            elif tok.type not in skip:
                if start is None:
                    start = tok.start
                last = tok
    except (tokenize.TokenError, SyntaxError):  # (IndentationError is one)
        pass
    return out
