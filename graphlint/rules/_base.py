"""The base class of every rule, built-in or third-party."""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING, Any, ClassVar, Iterable

from graphlint.findings import Finding, Location, Related, Severity

if TYPE_CHECKING:
    from graphlint.stacks import Frame

_SECTION = re.compile(r"^## (.+)$", re.M)


class Rule:
    """A graphlint rule: a pluggy plugin that turns runtime events into findings.

    Subclasses set the class attributes below and implement ``graphlint_*`` hook methods
    (see ``graphlint._hookspecs``), calling :meth:`report` for each finding; a hook method that
    raises is reported as GL000 and the rule gets no further event (:mod:`graphlint.dispatch`).
    The class docstring is the rule's documentation, with the sections ``## What it does``,
    ``## Why is this bad?``, ``## Example`` and ``## Use instead``.
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    severity: ClassVar[Severity] = Severity.WARNING
    summary: ClassVar[str] = ""
    fix: ClassVar[str] = ""
    #: Which engines implement the rule: "runtime", "static".
    engines: ClassVar[tuple[str, ...]] = ("runtime",)
    #: Whose programs it judges: "tensorflow", "keras" (Keras 3), "tf-keras", "jax"; () for any.
    frameworks: ClassVar[tuple[str, ...]] = ("tensorflow",)
    #: Configurable thresholds: option name (kebab-case) -> default value.
    options: ClassVar[dict[str, Any]] = {}
    #: The rule judges code that runs again and again (a loop, a function called per item):
    #: ``graphlint check`` leaves out its findings located in a test module, where a loop
    #: enumerates cases (graphlint.conventions.is_test_module). At runtime each test is judged
    #: on what it really repeated, with its own thresholds (``@pytest.mark.graphlint``).
    repetition: ClassVar[bool] = False

    def __init__(self, sink, options: dict[str, Any] | None = None):
        self._sink = sink
        self.config = {**self.options, **(options or {})}

    @classmethod
    def for_static(cls, sink, options: dict[str, Any] | None = None) -> "Rule":
        """An instance for ``check_module`` only: the base state, none of the runtime state a
        subclass's ``__init__`` builds (the static engine makes one per rule and file)."""
        rule = object.__new__(cls)  # no hook is called on it: none is wrapped (see __new__)
        Rule.__init__(rule, sink, options)
        return rule

    # -- reporting -------------------------------------------------------------------------
    def report(
        self,
        message: str,
        site: "Frame | Location | None",
        *,
        related: Iterable[tuple["Frame | Location", str]] = (),
        fix: str | None = None,
        count: int = 1,
        severity: Severity | None = None,
    ) -> None:
        """Report a finding of this rule at ``site`` (a user frame)."""
        if site is None:
            return
        finding = Finding(
            code=self.code,
            name=self.name,
            severity=severity or self.severity,
            message=message,
            location=_location(site),
            fix=self.fix if fix is None else fix,
            related=tuple(Related(_location(where), text) for where, text in related if where),
            count=count,
        )
        self._sink.add(finding)

    def report_internal_error(self, exc: BaseException, hook: str) -> None:
        """Report GL000: this rule's ``hook`` raised ``exc`` (graphlint's dispatcher calls it
        once, then gives the rule no further event)."""
        self._sink.internal_error(self, exc, hook)

    # -- documentation ---------------------------------------------------------------------
    @classmethod
    def docs(cls) -> dict[str, str]:
        """The docstring's sections: ``What it does``, ``Why is this bad?``, ..."""
        return parse_docs(inspect.getdoc(cls) or "")


def parse_docs(text: str) -> dict[str, str]:
    parts = _SECTION.split(text)
    sections = {"": parts[0].strip()}
    for title, body in zip(parts[1::2], parts[2::2]):
        sections[title.strip()] = body.strip()
    return sections


def _location(site) -> Location:
    if isinstance(site, Location):
        return site
    return Location(site.path, site.line, 1, site.function)
