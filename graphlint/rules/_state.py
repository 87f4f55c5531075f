"""Small pieces of state that several rules keep for themselves (never shared between rules)."""

from __future__ import annotations

from collections import defaultdict
from typing import Generic, TypeVar

from graphlint.sites import Frame

T = TypeVar("T")


class PerGraph(Generic[T]):
    """A value per graph id, created on first use and dropped when the graph is released."""

    def __init__(self, factory):
        self._data: dict[int, T] = defaultdict(factory)

    def __getitem__(self, graph_id: int) -> T:
        return self._data[graph_id]

    def get(self, graph_id: int) -> T | None:
        return self._data.get(graph_id)

    def pop(self, graph_id: int) -> T | None:
        return self._data.pop(graph_id, None)

    def items(self):
        return list(self._data.items())


class VariableSites:
    """Where each variable of each graph was created (name -> user frame)."""

    def __init__(self):
        self._sites: PerGraph[dict[str, Frame]] = PerGraph(dict)

    def add(self, graph_id: int, name: str, site: Frame | None) -> None:
        if site is not None:
            self._sites[graph_id].setdefault(name, site)

    def get(self, graph_id: int, name: str) -> Frame | None:
        sites = self._sites.get(graph_id)
        return sites.get(name) if sites else None

    def names(self, graph_id: int) -> list[str]:
        sites = self._sites.get(graph_id)
        return list(sites) if sites else []

    def release(self, graph_id: int) -> None:
        self._sites.pop(graph_id)


def plural(n: int, word: str, suffix: str = "s") -> str:
    return f"{n} {word}{'' if n == 1 else suffix}"


def quoted(names, limit: int = 4) -> str:
    names = list(names)
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    more = len(names) - limit
    return shown + (f" and {more} more" if more > 0 else "")
