"""Which rules exist: graphlint's own rule units, and the ``graphlint`` entry-point group.

A built-in rule is a unit, a package of ``graphlint/rules/`` (``graphlint/rules/<name>/``:
see :class:`graphlint.rules.Rule`): the units are found by listing that folder, so a new
rule needs no list edited and no reinstall. A third-party rule is an entry point of the
``graphlint`` group; both go through the same checks (:func:`malformed`) and end up alike, a
rule class by code. ``importlib.metadata.entry_points()`` reads the metadata of every
installed distribution (and imports the email parser to do it), which is most of a one-file
``graphlint check``'s start-up. So the ``entry_points.txt`` files on ``sys.path`` are read
directly, and only the ``[graphlint]`` sections are parsed; when ``sys.path`` holds anything
but plain directories (a zip, an egg), the standard ``importlib.metadata`` path is used.
Entry points of graphlint's own distribution are not read (an install made before the rules
became units still lists them).

The current directory is never searched: ``python -m graphlint check`` puts it on ``sys.path``,
and a checked folder's ``*.dist-info`` must not load code into graphlint.

What the reporters need to know of a rule reaches them as data, :class:`RuleDescription`
(:func:`describe`): they never read a rule class.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, NamedTuple

from graphlint import DISTRIBUTION
from graphlint.findings import Severity

if TYPE_CHECKING:
    from graphlint.rules._base import Rule

ENTRY_POINT_GROUP = "graphlint"
_SECTION = "[" + ENTRY_POINT_GROUP + "]"
_SECTION_BYTES = _SECTION.encode()
_METADATA = (".dist-info", ".egg-info")


def plugins_disabled() -> bool:
    """``GRAPHLINT_DISABLE_PLUGINS``, read as every boolean variable (graphlint.config.env_flag)."""
    from graphlint.config import env_flag

    return env_flag("GRAPHLINT_DISABLE_PLUGINS")


def normalized(name: str) -> str:
    """A distribution's name as PEP 503 compares them: ``re.sub(r"[-_.]+", "-", name).lower()``,
    without compiling a pattern at every start (~0.4M instructions; one name per installed
    distribution is normalised)."""
    name = name.replace("_", "-").replace(".", "-")
    while "--" in name:
        name = name.replace("--", "-")
    return name.lower()


def _search_path() -> list[str]:
    cwd = os.getcwd()
    out = []
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == cwd:
            continue
        out.append(entry)
    return out


def _declared() -> Iterator[tuple[str, str, str]]:
    """``(distribution, name, "module:attr")`` for every entry point of the group."""
    path = _search_path()
    if not all(os.path.isdir(entry) for entry in path if os.path.exists(entry)):
        yield from _declared_by_importlib(path)
        return
    seen: set[str] = set()
    for entry in path:
        try:
            names = sorted([name for name in os.listdir(entry) if name.endswith(_METADATA)])
        except OSError:
            continue
        folder = os.path.join(entry, "")
        for name in names:
            dist = normalized(name.rsplit(".", 1)[0].split("-", 1)[0])
            if dist in seen:  # the first on sys.path wins, as for imports
                continue
            seen.add(dist)
            file = f"{folder}{name}{os.sep}entry_points.txt"
            if not os.access(file, os.R_OK):  # (most distributions have none: no exception raised)
                continue
            try:  # bytes: only a file that declares the group is decoded (a text stream costs more)
                with open(file, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if _SECTION_BYTES in data:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                for ep_name, value in _section(text):
                    yield dist, ep_name, value


def _section(text: str) -> Iterator[tuple[str, str]]:
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            inside = line == _SECTION
            continue
        if inside and "=" in line:
            name, _, value = line.partition("=")
            yield name.strip(), value.strip()


def _declared_by_importlib(path: list[str]) -> Iterator[tuple[str, str, str]]:
    from importlib import metadata

    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        name = dist.metadata["Name"] if dist is not None else ""
        yield normalized(name), ep.name, ep.value


def _load(value: str):
    module, _, attr = value.partition(":")
    obj = importlib.import_module(module.strip())
    for part in attr.split("[", 1)[0].strip().split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


#: The package whose sub-packages are graphlint's own rule units.
RULES_PACKAGE = "graphlint.rules"


def builtin_units() -> list[str]:
    """The module names of graphlint's rule units: the packages of :data:`RULES_PACKAGE` (its
    folders with an ``__init__.py`` whose name does not start with ``_``), in name order."""
    package = importlib.import_module(RULES_PACKAGE)
    names = set()
    for folder in package.__path__:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name[:1] not in "_." and entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                names.add(entry.name)
    return [f"{RULES_PACKAGE}.{name}" for name in sorted(names)]


def unit_rule(module) -> type[Rule] | None:
    """The rule class a unit's module defines (not one it imports), or None."""
    from graphlint.rules._base import Rule

    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__ and value.code:
            return value
    return None


_SEVERITY_NAMES = ", ".join(s.value for s in Severity)


def malformed(cls) -> str | None:
    """What is wrong with a rule class's declaration (its code, name, severity, texts,
    options, frameworks, static words), or None: a rule that says this is skipped, the others run."""
    code = getattr(cls, "code", None)
    if not isinstance(code, str) or not code or code != code.strip() or " " in code:
        return f"`code` must be a word such as 'XY100', not {code!r}"
    for attr in ("name", "summary", "fix"):
        value = getattr(cls, attr, None)
        if not isinstance(value, str):
            return f"`{attr}` must be a string, not {value!r}"
    severity = getattr(cls, "severity", None)
    if not isinstance(severity, Severity):
        return f"`severity` must be a graphlint.Severity ({_SEVERITY_NAMES}), not {severity!r}"
    options = getattr(cls, "options", None)
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        return f"`options` must be a dict of option names to default values, not {options!r}"
    frameworks = getattr(cls, "frameworks", None)
    if not isinstance(frameworks, (tuple, list)) or not all(isinstance(f, str) for f in frameworks):
        return f"`frameworks` must be a tuple of framework names, not {frameworks!r}"
    words = getattr(cls, "static_words", ())
    if not isinstance(words, (tuple, list)) or not all(isinstance(w, str) for w in words):
        return f"`static_words` must be a tuple of words, not {words!r}"
    return None


def discover_rules(*, plugins: bool = True, warn: Callable[[str], None] | None = None) -> dict:
    """Rule classes by code: graphlint's own units, then the ``graphlint`` entry points of
    other distributions (skipped with ``plugins=False`` or ``GRAPHLINT_DISABLE_PLUGINS=1``).
    A rule that cannot be loaded, or whose declaration is malformed, is skipped with one
    warning line."""
    from graphlint.config import ConfigError
    from graphlint.rules._base import Rule

    def skip(message: str) -> None:
        if warn:
            warn(message)

    found: dict = {}
    for label, named, load in _candidates(plugins and not plugins_disabled()):
        try:
            cls = load()
        except Exception as exc:  # a broken rule must not stop the others
            skip(f"graphlint: cannot load {label}: {exc}")
            continue
        if not (isinstance(cls, type) and issubclass(cls, Rule) and cls.code):
            skip(f"graphlint: {named} is not a graphlint Rule class")
            continue
        problem = malformed(cls)
        if problem is not None:
            skip(f"graphlint: {label} is malformed and skipped: {problem}")
            continue
        found[cls.code] = cls
    if not found:
        raise ConfigError("graphlint's rules are not installed (install it: pip install -e .)")
    return dict(sorted(found.items()))


def _unit_rule_of(unit: str) -> type[Rule] | None:
    return unit_rule(importlib.import_module(unit))


def _candidates(plugins: bool) -> Iterator[tuple[str, str, Callable[[], Any]]]:
    """``(what to call it, what to call it when it is no rule, its loader)`` for every rule to
    load: graphlint's own units, then (``plugins``) the entry points of other distributions."""
    for unit in builtin_units():
        yield f"rule {unit}", unit, functools.partial(_unit_rule_of, unit)
    for dist, name, value in _declared() if plugins else ():
        if dist not in (DISTRIBUTION, "graphlint"):  # its own rules are its units (an older install lists them)
            yield f"rule plugin {name} ({value})", f"entry point {name} ({value})", functools.partial(_load, value)


class RuleDescription(NamedTuple):
    """A rule as the reporters and the docs see it: plain data, no behaviour (a named tuple:
    a frozen dataclass costs ~4M instructions more to create, at every start).

    ``docs`` are the docstring's sections (``""`` the lead paragraph, then ``What it does``,
    ``Why is this bad?``, ``Example``, ``Use instead``)."""

    code: str
    name: str
    severity: Severity
    summary: str = ""
    fix: str = ""
    docs: Mapping[str, str] = MappingProxyType({})
    engines: tuple[str, ...] = ("runtime",)
    frameworks: tuple[str, ...] = ("tensorflow",)
    options: Mapping[str, Any] = MappingProxyType({})

    @classmethod
    def of(cls, rule: type[Rule]) -> "RuleDescription":
        """The description of a :class:`graphlint.Rule` subclass."""
        return cls(
            code=rule.code,
            name=rule.name,
            severity=rule.severity,
            summary=rule.summary,
            fix=rule.fix,
            docs=rule.docs(),
            engines=tuple(rule.engines),
            frameworks=tuple(getattr(rule, "frameworks", ("tensorflow",))),
            options=dict(rule.options),
        )


class Descriptions(Mapping[str, RuleDescription]):
    """Rule descriptions by code, each made when it is first read: the text and JSON reports
    read none (a description parses its rule's docstring: ~6M instructions for the 20 built-in
    rules, 2% of a one-file check), SARIF and ``graphlint rules`` read them all."""

    def __init__(self, rules: Mapping[str, type[Rule]]):
        self._rules = dict(rules)
        self._made: dict[str, RuleDescription] = {}

    def __getitem__(self, code: str) -> RuleDescription:
        made = self._made.get(code)
        if made is None:
            made = self._made[code] = RuleDescription.of(self._rules[code])
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._rules)

    def __len__(self) -> int:
        return len(self._rules)


def describe(rules: Mapping[str, type] | None) -> Descriptions:
    """Descriptions of rule classes by code (as :func:`discover_rules` returns them), in their order."""
    return Descriptions(rules or {})
