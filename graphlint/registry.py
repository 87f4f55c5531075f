"""Which rules exist: the ``graphlint`` entry-point group, read without scanning every package.

graphlint's own rules are registered exactly like third-party ones, as entry points of the
``graphlint`` group. ``importlib.metadata.entry_points()`` reads the metadata of every
installed distribution (and imports the email parser to do it), which is most of a one-file
``graphlint check``'s start-up. So the ``entry_points.txt`` files on ``sys.path`` are read
directly, and only the ``[graphlint]`` sections are parsed; when ``sys.path`` holds anything
but plain directories (a zip, an egg), the standard ``importlib.metadata`` path is used.

The current directory is never searched: ``python -m graphlint check`` puts it on ``sys.path``,
and a checked folder's ``*.dist-info`` must not load code into graphlint.

What the reporters need to know of a rule reaches them as data, :class:`RuleDescription`
(:func:`describe`): they never read a rule class.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

from graphlint import DISTRIBUTION
from graphlint.findings import Severity

ENTRY_POINT_GROUP = "graphlint"
_SECTION = "[" + ENTRY_POINT_GROUP + "]"
_NORMALIZE = re.compile(r"[-_.]+")


def plugins_disabled() -> bool:
    """``GRAPHLINT_DISABLE_PLUGINS``, read as every boolean variable (graphlint.config.env_flag)."""
    from graphlint.config import env_flag

    return env_flag("GRAPHLINT_DISABLE_PLUGINS")


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
            with os.scandir(entry) as listing:
                names = sorted(e.name for e in listing if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
        for name in names:
            dist = _NORMALIZE.sub("-", name.rsplit(".", 1)[0].split("-", 1)[0]).lower()
            if dist in seen:  # the first on sys.path wins, as for imports
                continue
            seen.add(dist)
            try:
                with open(os.path.join(entry, name, "entry_points.txt"), encoding="utf-8") as fh:
                    text = fh.read()
            except (OSError, UnicodeDecodeError):
                continue
            if _SECTION in text:
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
        yield _NORMALIZE.sub("-", name).lower(), ep.name, ep.value


def _load(value: str):
    module, _, attr = value.partition(":")
    obj = importlib.import_module(module.strip())
    for part in attr.split("[", 1)[0].strip().split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def discover_rules(*, plugins: bool = True, warn: Callable[[str], None] | None = None) -> dict:
    """Rule classes from the ``graphlint`` entry-point group, by code.

    Built-in rules come from graphlint's own distribution; with ``plugins=False`` (or
    ``GRAPHLINT_DISABLE_PLUGINS=1``) entry points of other distributions are skipped.
    """
    from graphlint.config import ConfigError
    from graphlint.rules._base import Rule

    plugins = plugins and not plugins_disabled()
    found: dict = {}
    for dist, name, value in _declared():
        if dist != DISTRIBUTION and not plugins:
            continue
        try:
            cls = _load(value)
        except Exception as exc:  # a broken plugin must not stop the others
            if warn:
                warn(f"graphlint: cannot load rule plugin {name} ({value}): {exc}")
            continue
        if not (isinstance(cls, type) and issubclass(cls, Rule) and cls.code):
            if warn:
                warn(f"graphlint: entry point {name} ({value}) is not a graphlint Rule class")
            continue
        found[cls.code] = cls
    if not found:
        raise ConfigError("graphlint's rules are not installed (install it: pip install -e .)")
    return dict(sorted(found.items()))


@dataclass(frozen=True)
class RuleDescription:
    """A rule as the reporters and the docs see it: plain data, no behaviour.

    ``docs`` are the docstring's sections (``""`` the lead paragraph, then ``What it does``,
    ``Why is this bad?``, ``Example``, ``Use instead``)."""

    code: str
    name: str
    severity: Severity
    summary: str = ""
    fix: str = ""
    docs: Mapping[str, str] = field(default_factory=dict)
    engines: tuple[str, ...] = ("runtime",)
    frameworks: tuple[str, ...] = ("tensorflow",)
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, rule: type) -> "RuleDescription":
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


def describe(rules: Mapping[str, type] | None) -> dict[str, RuleDescription]:
    """Descriptions of rule classes by code (as :func:`discover_rules` returns them)."""
    return {code: RuleDescription.of(cls) for code, cls in (rules or {}).items()}
