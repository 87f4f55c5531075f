"""The base class of every rule, built-in or third-party."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable

from graphlint.findings import Finding, FindingSink, Location, Related, Severity

if TYPE_CHECKING:
    from graphlint.jupyter.rules import KernelRule
    from graphlint.stacks import Frame
    from graphlint.static.hits import Hit
    from graphlint.static.model.module import Module

    #: A rule's static form: the hits it finds in one module model, with the rule's options.
    StaticCheck = Callable[[Module, dict[str, Any]], Iterable[Hit]]

#: A docstring section's title line (compiled at first use: only reports and docs read them).
_SECTION = r"(?m)^## (.+)$"


class Rule:
    """A graphlint rule: its metadata and docs, and the forms that find it.

    Subclasses set the class attributes below. The class docstring is the rule's
    documentation, with the sections ``## What it does``, ``## Why is this bad?``,
    ``## Example``, ``## Use instead`` and, when there are some, ``## Known exemptions``.

    The forms, each optional:

    - *runtime* (``graphlint run``, the pytest plugin): ``graphlint_*`` hook methods (see
      ``graphlint._hookspecs``) that call :meth:`report` for each finding; a hook method that
      raises is reported as GL000 and the rule gets no further event (:mod:`graphlint.dispatch`);
    - *static* (``graphlint check``): ``check(module, options) -> Iterable[Hit]``, a plain
      function of the module model (:mod:`graphlint.static.model`) and the rule's options;
    - *kernel* (``%load_ext graphlint``): a class judging a notebook cell's runs against each
      other (:mod:`graphlint.jupyter.rules`).

    A built-in rule is a unit, one package ``graphlint/rules/<name>/``: the rule class in its
    ``__init__.py``, its runtime form in ``runtime.py`` (the class ``Runtime``, a subclass of
    the rule with the hooks), its static form in ``check.py`` (the function ``check``) and its
    kernel form in ``kernel.py`` (the class ``Kernel``); each is imported when an engine first
    asks for it (:meth:`runtime_form`, :meth:`static_form`, :meth:`kernel_form`), so
    ``graphlint check`` loads no runtime form and ``graphlint run`` no static one. A rule
    defined in one module (a plugin) has its hooks and :attr:`check` on the class itself.
    Which engines a rule has (:attr:`engines`) is derived from the forms it has.
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    severity: ClassVar[Severity] = Severity.WARNING
    summary: ClassVar[str] = ""
    fix: ClassVar[str] = ""
    #: Which engines implement the rule, "runtime" and/or "static": derived from its forms
    #: when the class is made (a rule with no form, GL000 and GL001, declares them).
    engines: ClassVar[tuple[str, ...]] = ("runtime",)
    #: The static form of a rule defined in one module: ``check(module, options)`` (a plain
    #: function; a rule unit has it in its ``check`` module instead).
    check: ClassVar["StaticCheck | None"] = None
    #: Whose programs it judges: "tensorflow-v1" (TensorFlow 1 graphs and sessions, also through
    #: ``tf.compat.v1``), "tensorflow" (TensorFlow 2: ``tf.function``, eager), "keras" (Keras
    #: 3), "tf-keras", "jax"; () for any.
    frameworks: ClassVar[tuple[str, ...]] = ("tensorflow",)
    #: Configurable thresholds: option name (kebab-case) -> default value.
    options: ClassVar[dict[str, Any]] = {}
    #: The rule judges code that runs again and again (a loop, a function called per item):
    #: ``graphlint check`` leaves out its findings located in a test module, where a loop
    #: enumerates cases (graphlint.conventions.is_test_module). At runtime each test is judged
    #: on what it really repeated, with its own thresholds (``@pytest.mark.graphlint``).
    repetition: ClassVar[bool] = False
    #: Words one of which a module's source must hold for the static form to find anything in
    #: it (the form's own first test, declared): ``graphlint check`` neither runs nor imports
    #: the form for any other module (:meth:`may_report_on`). () for every module.
    static_words: ClassVar[tuple[str, ...]] = ()

    #: The rule unit this class is (or inherits from): its package and the package's files.
    _unit: ClassVar[tuple[str, frozenset[str]]] = ("", frozenset())
    _forms: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._unit = _unit(cls) or cls._unit
        cls._forms = {}
        cls.engines = _engines(cls)

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        self._sink = sink
        self.config = {**self.options, **(options or {})}

    # -- forms ---------------------------------------------------------------------------
    @classmethod
    def runtime_form(cls) -> "type[Rule]":
        """The class whose instances receive the runtime events: a unit's rule class has them in
        its ``runtime.Runtime`` (imported on first use); any other rule class (a plugin, or
        the ``Runtime`` itself) is its own."""
        if cls.__module__ != cls._unit[0] or "runtime.py" not in cls._unit[1]:
            return cls
        # looked up in sys.modules each time, never kept: a module dropped from sys.modules and
        # imported again (pytester's in-process runs restore sys.modules after each run) has a
        # new ``Runtime``, and a rule state of the old one could no longer be pickled by name
        return importlib.import_module(cls._unit[0] + ".runtime").Runtime

    @classmethod
    def checks_statically(cls) -> bool:
        """Whether ``graphlint check`` runs this rule: it has a static form, or (a plugin
        written for the interface before it) a ``check_module(self, module)`` method.
        Answered without importing the static form."""
        return cls.check is not None or "check.py" in cls._unit[1] or callable(getattr(cls, "check_module", None))

    @classmethod
    def static_form(cls) -> "StaticCheck | None":
        """The static form, ``check(module, options) -> Iterable[Hit]``, or None. A unit's
        ``check`` module is imported on first use."""
        if "static" not in cls._forms:
            form = cls.check
            if form is None and "check.py" in cls._unit[1]:
                form = importlib.import_module(cls._unit[0] + ".check").check
            cls._forms["static"] = form
        return cls._forms["static"]

    @classmethod
    def may_report_on(cls, text: str) -> bool:
        """Whether the static form can find anything in a module of source ``text``
        (:attr:`static_words`), answered without importing the form. A source with characters
        beyond ASCII may bind a word it does not spell (the parser normalises identifiers:
        ``import ｔｏｒｃｈ`` imports torch): the form runs."""
        return not cls.static_words or not text.isascii() or any(word in text for word in cls.static_words)

    @classmethod
    def kernel_form(cls) -> "type[KernelRule] | None":
        """The kernel form, a rule class judging a notebook cell's runs (its unit's
        ``kernel.Kernel``), or None."""
        if "kernel" not in cls._forms:
            found = None
            if "kernel.py" in cls._unit[1]:
                found = importlib.import_module(cls._unit[0] + ".kernel").Kernel
            cls._forms["kernel"] = found
        return cls._forms["kernel"]

    # -- reporting -------------------------------------------------------------------------
    def report(
        self,
        message: str,
        site: "Frame | Location | None",
        *,
        related: Iterable[tuple["Frame | Location | None", str]] = (),
        fix: str | None = None,
        count: int = 1,
        severity: Severity | None = None,
    ) -> None:
        """Report a finding of this rule at ``site`` (a user frame); nothing when ``site`` is
        None. A ``related`` site that is None is left out."""
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


def _unit(cls: type[Rule]) -> tuple[str, frozenset[str]] | None:
    """``(package, its files)`` when ``cls`` is defined in the ``__init__`` of a package: a
    rule unit; None for a class of a plain module."""
    module = sys.modules.get(cls.__module__)
    path = getattr(module, "__path__", None)
    if not path:
        return None
    try:
        return cls.__module__, frozenset(os.listdir(path[0]))
    except OSError:
        return None


def _hooks(cls: type[Rule]) -> bool:
    """Whether the class has hook methods (``graphlint_*``) of its own or inherited (``Rule``
    itself has none)."""
    return any(
        attr.startswith("graphlint_") and callable(value)
        for klass in cls.__mro__
        if klass is not object and klass is not Rule
        for attr, value in vars(klass).items()
    )


def _engines(cls: type[Rule]) -> tuple[str, ...]:
    """The engines a rule's forms make: "runtime" for its hook methods or its unit's runtime
    form, "static" for its static form (or a plugin's ``check_module``); a rule with neither
    keeps what it declares."""
    runtime = _hooks(cls) or "runtime.py" in cls._unit[1]
    engines = (("runtime",) if runtime else ()) + (("static",) if cls.checks_statically() else ())
    return engines or cls.__dict__.get("engines", Rule.engines)


def parse_docs(text: str) -> dict[str, str]:
    parts = re.split(_SECTION, text)
    sections = {"": parts[0].strip()}
    for title, body in zip(parts[1::2], parts[2::2]):
        sections[title.strip()] = body.strip()
    return sections


def _location(site: Frame | Location) -> Location:
    if isinstance(site, Location):
        return site
    from graphlint.stacks import position

    column, end_line, end_column = position(site)
    return Location(site.path, site.line, column, site.function, end_line=end_line, end_column=end_column)
