"""What a rule's kernel form stands on: what re-running a notebook cell does.

In a notebook the repeated call is the cell itself: running the cell that builds the model a
second time builds it again. A rule's kernel form (``graphlint/rules/<rule>/kernel.py``, the
class ``Kernel``: GL101, GL502 and GL503 have one) compares a cell's runs with each other (a
cell is known by its notebook cell id when the front end sends one, else by its text), through
the same events as the program rules; the extension tells them which cell run is current
(:class:`Cells`) and asks them to judge when it ends (:meth:`KernelRule.cell_finished`).
Thresholds fit interactive use, where running a cell twice is normal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Iterable

from graphlint.findings import Location
from graphlint.rules._base import Rule

if TYPE_CHECKING:
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame


@dataclass
class CellRun:
    """One execution of one cell: ``key`` names the cell across runs, ``count`` is its
    ``In [n]`` (known once it ran)."""

    key: str
    count: int | None = None
    filename: str = ""  # the name the cell's code is compiled under
    aliases: tuple[str, ...] = ()  # names its body runs under too (`%%time`: "<timed exec>")


@dataclass
class Cells:
    """Which cell run is in progress (set by the extension around each cell)."""

    current: CellRun | None = None
    runs: list[CellRun] = field(default_factory=list)


def label(run: CellRun) -> str:
    return f"In [{run.count}]" if run.count is not None else "In [ ]"


def at(site: Frame, run: CellRun) -> Location:
    """``site`` (a user frame) as a Location that remembers the run: ``In [n]``, not the
    cell's latest count, names it."""
    return Location(site.path, site.line, 1, site.function, cell=run.count)


def runs_text(runs: list[CellRun]) -> str:
    labels = [label(r) for r in runs]
    return ", ".join(labels[:4] + (["…"] if len(labels) > 5 else []) + labels[4:][-1:])


class KernelRule(Rule):
    """The base of a rule's kernel form: it knows the cell run in progress. A form names the
    rule it is of (:attr:`rule`), whose code, name and severity are its own."""

    rule: ClassVar[type[Rule]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        rule = cls.__dict__.get("rule")
        if rule is not None:
            cls.code, cls.name, cls.severity = rule.code, rule.name, rule.severity
        super().__init_subclass__(**kwargs)

    def __init__(self, sink: FindingSink, cells: Cells, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.cells = cells

    def cell_finished(self, run: CellRun) -> None:
        """Judge what ``run`` did (called by the extension after the cell)."""


def kernel_rules(rule_classes: Iterable[type[Rule]]) -> list[type[KernelRule]]:
    """The kernel forms of these rules (:meth:`graphlint.rules.Rule.kernel_form`), in order."""
    return [form for form in (cls.kernel_form() for cls in rule_classes) if form is not None]
