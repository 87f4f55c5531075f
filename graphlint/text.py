"""Words for messages, shared by rules, reporters and the command line."""

from __future__ import annotations


def plural(n: int, word: str, suffix: str = "s") -> str:
    """``1 finding``, ``2 findings`` (``suffix`` for other plurals: ``plural(2, "match", "es")``)."""
    return f"{n} {word}{'' if n == 1 else suffix}"
