"""Small pieces of state that several rules keep for themselves (never shared between rules)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from graphlint.rules._base import Rule

if TYPE_CHECKING:
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame, Stack

T = TypeVar("T")


class PerGraph(Generic[T]):
    """A value per graph id, created on first use and dropped when the graph is released."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self._data: dict[int, T] = defaultdict(factory)

    def __getitem__(self, graph_id: int) -> T:
        return self._data[graph_id]

    def get(self, graph_id: int) -> T | None:
        return self._data.get(graph_id)

    def pop(self, graph_id: int) -> T | None:
        return self._data.pop(graph_id, None)

    def items(self) -> list[tuple[int, T]]:
        return list(self._data.items())


class VariableSites:
    """Where each variable of each graph was created (name -> the user's stack then)."""

    def __init__(self) -> None:
        self._stacks: PerGraph[dict[str, Stack]] = PerGraph(dict)

    def add(self, graph_id: int, name: str, stack: Stack | None) -> None:
        if stack is not None and stack.frames:
            self._stacks[graph_id].setdefault(name, stack)

    def get(self, graph_id: int, name: str) -> Frame | None:
        stack = self.stack(graph_id, name)
        return stack.site if stack else None

    def stack(self, graph_id: int, name: str) -> Stack | None:
        stacks = self._stacks.get(graph_id)
        return stacks.get(name) if stacks else None

    def names(self, graph_id: int) -> list[str]:
        stacks = self._stacks.get(graph_id)
        return list(stacks) if stacks else []

    def release(self, graph_id: int) -> None:
        self._stacks.pop(graph_id)


class KeepsVariableSites(Rule):
    """A base of runtime forms that know where each variable of each graph was created
    (:attr:`sites`, dropped with the graph). The form records them in its own
    ``graphlint_variable_created``, which hears what it needs of the event (GL201)."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.sites = VariableSites()

    def graphlint_graph_released(self, graph_id: int) -> None:
        self.sites.release(graph_id)


class SeesVariables(KeepsVariableSites):
    """A :class:`KeepsVariableSites` that hears of a variable's creation only to record its
    site (GL202, GL203, GL401)."""

    def graphlint_variable_created(self, graph_id: int, name: str, stack: Stack) -> None:
        self.sites.add(graph_id, name, stack)


def two_sites(
    first: Stack | None, second: Stack | None, first_text: str, second_text: str
) -> list[tuple[Frame | None, str]]:
    """Related sites for a clash between what ``first`` and ``second`` built.

    When both reached the clash through the same line (a helper called twice), the lines that
    matter are the two different calls further out; name those.
    """
    if first is None or not first.frames:
        return []
    if second is not None and second.frames and first.frames[-1][:2] == second.frames[-1][:2]:
        for a, b in zip(first.frames, second.frames):
            if a[:2] != b[:2]:
                return [(a, first_text.replace("here", "by this call")),
                        (b, second_text.replace("here", "by this call"))]
    return [(first.site, first_text)]


def quoted(names: Iterable[str], limit: int = 4) -> str:
    names = list(names)
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    more = len(names) - limit
    return shown + (f" and {more} more" if more > 0 else "")
