"""GL506's runtime form: dynamo's graph breaks per line of the user's code, judged at the end."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphlint.findings import Severity
from graphlint.rules import _torch
from graphlint.rules.graph_break import GraphBreak
from graphlint.text import plural

if TYPE_CHECKING:
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame


@dataclass(slots=True)
class _Break:
    site: Frame
    name: str
    reason: str
    explanation: str
    hints: tuple[str, ...]
    count: int = 0
    skipped: bool = False
    calls: list[Frame] = field(default_factory=list)  # the user's lines that called the compiled code


class Runtime(GraphBreak):
    """GraphBreak at runtime: the hooks, and the breaks they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.breaks: dict[tuple[str, int], _Break] = {}  # (path, line) -> the breaks there

    def graphlint_graph_break(
        self, name: str, site: Frame | None, call_site: Frame | None, reason: str, explanation: str,
        hints: tuple[str, ...], skipped: bool,
    ) -> None:
        if site is None or any(word in f"{reason} {explanation}" for word in _torch.INTENTIONAL):
            return
        entry = self.breaks.get(site[:2])
        if entry is None:
            entry = self.breaks[site[:2]] = _Break(site, name, reason, explanation, tuple(hints))
        entry.count += 1
        entry.skipped = entry.skipped or skipped
        if call_site is not None and call_site[:2] != site[:2] and call_site[:2] not in {c[:2] for c in entry.calls}:
            entry.calls.append(call_site)

    def graphlint_run_finished(self) -> None:
        for entry in self.breaks.values():
            said = _torch.break_said(entry.reason, entry.explanation)
            if entry.skipped:
                message = (
                    f"graph break in a loop of `{entry.name}()`: {said}; dynamo skips the whole frame, which runs "
                    f"eagerly (uncompiled) ({plural(entry.count, 'compile')} broke here)"
                )
            else:
                message = (
                    f"graph break in `{entry.name}()`: {said}; the compiled code is split here into two graphs, "
                    f"with a round trip to Python between them ({plural(entry.count, 'compile')} broke here)"
                )
            related = [(where, "the compiled call that broke there") for where in entry.calls[:2]]
            self.report(
                message,
                entry.site,
                related=related,
                fix=_torch.break_fix(entry.reason, entry.explanation, entry.hints),
                severity=Severity.ERROR if entry.skipped else None,
            )
        self.breaks.clear()
