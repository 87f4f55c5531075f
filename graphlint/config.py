"""Settings: what ``[tool.graphlint]`` (or a ``graphlint.toml``) and the command line say, as a
:class:`Config`, and how rule selection resolves (ruff's order).

A configuration is built from *layers*, lowest priority first: graphlint's defaults, the
configuration files of an ``extend`` chain (the extended file first), then the command line.
Each layer may ``select`` (which starts the set afresh), ``extend-select`` and ``ignore`` (with
its synonym ``extend-ignore``). Within a layer the most specific code or prefix wins and, at
equal specificity, ``ignore`` wins (``--select GL1 --ignore GL1`` selects nothing from GL1);
a later layer overrides what it names: ``--select GL103`` over ``ignore = ["GL103"]`` reports
GL103, as ``--extend-select GL103`` does. Which file applies to which checked file is
:mod:`graphlint.config_files`'.
"""

from __future__ import annotations

import fnmatch
import os
import re
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from graphlint.rules._base import Rule

#: A rule code or prefix (compiled at first use: most runs name none).
_CODE = r"^[A-Z]+[0-9]*$"
KEYS = frozenset(
    {
        "select", "extend-select", "ignore", "extend-ignore", "per-file-ignores",
        "extend-per-file-ignores", "rules", "exclude", "extend-exclude", "force-exclude",
        "extend", "cache-dir",
    }
)
#: Rules a default selection leaves out (ruff's RUF100 is off until selected the same way):
#: ``GL002`` unused-noqa. ``select = ["ALL"]``, ``["GL"]`` or ``["GL002"]`` turn it on.
DEFAULT_OFF = frozenset({"GL002"})


class ConfigError(Exception):
    """Configuration graphlint cannot work with; the message is one line for the user."""


_TRUE = frozenset({"1", "true", "t", "yes", "y", "on"})
_FALSE = frozenset({"", "0", "false", "f", "no", "n", "off"})


def env_flag(name: str) -> bool:
    """A boolean environment variable, read one way for all of graphlint's (``GRAPHLINT_NO_CACHE``,
    ``GRAPHLINT_DISABLE_PLUGINS``, ``GRAPHLINT_TRACEBACK``...) as click reads a flag: ``1``,
    ``true``, ``yes``, ``on`` (any case) are true; unset, empty, ``0``, ``false``, ``no``,
    ``off`` false; anything else is a :class:`ConfigError`."""
    raw = os.environ.get(name)
    if raw is None:
        return False
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean: use 1 or 0 (true/false, yes/no, on/off)")


class Layer(NamedTuple):
    """One layer of rule selection: a file's settings, or the command line's (a named tuple: a
    frozen dataclass costs ~3M instructions to create, at every start)."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def named(self) -> list[str]:
        return list(self.select or ()) + list(self.extend_select) + list(self.ignore)


class Config:
    """The settings for the files one configuration applies to.

    ``select`` (``None``: the default set), ``extend_select`` and ``ignore`` are the resolved
    selection: the most specific pattern wins, ``ignore`` at equal specificity.
    ``per_file_ignores`` and ``exclude`` are relative to ``root`` (the folder of the file
    that set them); ``inherited_*`` hold those an ``extend`` chain brought, each with its root.
    Every argument is a keyword; ``root`` defaults to the current folder. (A plain class: a
    dataclass of 13 fields costs ~4M instructions to create, at every start.)
    """

    select: list[str] | None
    extend_select: list[str]
    ignore: list[str]
    per_file_ignores: dict[str, list[str]]
    exclude: list[str]
    rule_options: dict[str, dict[str, Any]]
    source: str | None
    root: str
    force_exclude: bool
    cache_dir: str | None  # absolute, from a `cache-dir` setting
    inherited_exclude: list[tuple[str, list[str]]]
    inherited_per_file_ignores: list[tuple[str, dict[str, list[str]]]]
    named: list[str]  # every code named anywhere (validated)

    #: The settings, in this order (:meth:`replace`, ``==``, ``repr``).
    FIELDS = (
        "select", "extend_select", "ignore", "per_file_ignores", "exclude", "rule_options", "source", "root",
        "force_exclude", "cache_dir", "inherited_exclude", "inherited_per_file_ignores", "named",
    )

    def __init__(
        self, *, select: list[str] | None = None, extend_select: list[str] | None = None, ignore: list[str] | None = None,
        per_file_ignores: dict[str, list[str]] | None = None, exclude: list[str] | None = None,
        rule_options: dict[str, dict[str, Any]] | None = None, source: str | None = None, root: str | None = None,
        force_exclude: bool = False, cache_dir: str | None = None,
        inherited_exclude: list[tuple[str, list[str]]] | None = None,
        inherited_per_file_ignores: list[tuple[str, dict[str, list[str]]]] | None = None,
        named: list[str] | None = None,
    ) -> None:
        self.select = select
        self.extend_select = [] if extend_select is None else extend_select
        self.ignore = [] if ignore is None else ignore
        self.per_file_ignores = {} if per_file_ignores is None else per_file_ignores
        self.exclude = [] if exclude is None else exclude
        self.rule_options = {} if rule_options is None else rule_options
        self.source = source
        self.root = os.getcwd() if root is None else root
        self.force_exclude = force_exclude
        self.cache_dir = cache_dir
        self.inherited_exclude = [] if inherited_exclude is None else inherited_exclude
        self.inherited_per_file_ignores = [] if inherited_per_file_ignores is None else inherited_per_file_ignores
        self.named = [] if named is None else named

    def replace(self, **changes: Any) -> "Config":
        """A new configuration: these settings changed, the others as here."""
        return Config(**{**{name: getattr(self, name) for name in self.FIELDS}, **changes})

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by its settings

    def __repr__(self) -> str:
        return f"Config({', '.join(f'{name}={getattr(self, name)!r}' for name in self.FIELDS)})"

    # -- selection -------------------------------------------------------------------------
    def is_selected(self, code: str) -> bool:
        """Ruff's semantics: the most specific of select/ignore wins, ignore on a tie; the
        default set is every rule but :data:`DEFAULT_OFF`."""
        default = self.select is None
        chosen = _longest_match(code, ([""] if self.select is None else self.select) + self.extend_select)
        if chosen < 0 or (default and chosen == 0 and code in DEFAULT_OFF and "" not in self.extend_select):
            return False
        ignored = _longest_match(code, self.ignore)
        return ignored < 0 or chosen > ignored

    def with_layer(self, layer: Layer) -> "Config":
        """This configuration with ``layer`` applied on top (the command line, a test's marker)."""
        select, extend, ignore = _apply(self.select, self.extend_select, self.ignore, layer)
        return self.replace(select=select, extend_select=extend, ignore=ignore, named=self.named + layer.named())

    def ignored_for_path(self, code: str, path: str) -> bool:
        for root, table in [(self.root, self.per_file_ignores), *self.inherited_per_file_ignores]:
            rel = _relative(path, root)
            for pattern, codes in table.items():
                if _path_matches(rel, pattern) and _longest_match(code, codes) >= 0:
                    return True
        return False

    def excluded(self, path: str, is_dir: bool) -> bool:
        """Whether ``exclude``/``extend-exclude`` (gitignore syntax, relative to the folder of
        the file that set them) cover ``path``."""
        for root, spec in self._exclude_specs():
            rel = _relative(path, root)
            if not rel.startswith("../") and rel != ".." and spec.match_file(rel + "/" if is_dir else rel):
                return True
        return False

    def _exclude_specs(self) -> list:
        specs = self.__dict__.get("_specs")
        if specs is None:
            specs = self.__dict__["_specs"] = [
                (root, exclude_spec(patterns, self.source))
                for root, patterns in [(self.root, self.exclude), *self.inherited_exclude]
                if patterns
            ]
        return specs

    def options_for(self, rule_cls) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for key in (rule_cls.code, rule_cls.name):
            merged.update(self.rule_options.get(key, {}))
        return merged

    def validate(self, rule_classes: dict[str, type[Rule]]) -> None:
        """Raise ConfigError for codes, rules or rule options (or their values) that do not exist."""
        from graphlint.findings import INTERNAL_ERROR_CODE

        self.validate_codes(set(rule_classes) | {INTERNAL_ERROR_CODE})
        check_rule_options(self, rule_classes)

    def validate_codes(self, known_codes: set[str]) -> None:
        """Every code or prefix named anywhere must match some known rule."""
        named = self.named + list(self.select or []) + self.extend_select + self.ignore
        for table in [self.per_file_ignores, *(t for _, t in self.inherited_per_file_ignores)]:
            for codes in table.values():
                named += codes
        for code in named:
            if code and not any(k.startswith(code) for k in known_codes):
                raise ConfigError(f"unknown rule code or prefix {code!r} (see `graphlint rules`)")


def _apply(select, extend, ignore, layer: Layer):
    """``(select, extend_select, ignore)`` after ``layer``: its ``select`` starts afresh; else
    what it selects drops earlier ignores as specific or less, what it ignores earlier selects."""
    if layer.select is not None:
        return list(layer.select) + list(layer.extend_select), [], list(layer.ignore)
    select = None if select is None else list(select)
    extend, ignore = list(extend), list(ignore)
    for pattern in layer.extend_select:
        ignore = [q for q in ignore if not q.startswith(pattern)]
    for pattern in layer.ignore:
        if select is None and pattern == "":
            select = []  # `ignore ALL` over the default set
        if select is not None:
            select = [q for q in select if not q.startswith(pattern)]
        extend = [q for q in extend if not q.startswith(pattern)]
    return select, extend + list(layer.extend_select), ignore + list(layer.ignore)


def _relative(path: str, root: str) -> str:
    # relative to the configuration's folder, however the path was given (``./ign/x.py``
    # from a walk of ``.``, ``x.py`` from a subdirectory)
    try:
        return os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    except ValueError:  # another drive (Windows)
        return path.replace(os.sep, "/")


def _longest_match(code: str, patterns: list[str]) -> int:
    best = -1
    for pattern in patterns:
        if code.startswith(pattern) and len(pattern) > best:
            best = len(pattern)
    return best


def _path_matches(rel: str, pattern: str) -> bool:
    pattern = pattern.replace(os.sep, "/")
    return (
        fnmatch.fnmatch(rel, pattern)
        or fnmatch.fnmatch(os.path.basename(rel), pattern)
        or rel.startswith(pattern.rstrip("/") + "/")
    )


def exclude_spec(patterns: list[str], source: str | None = None):
    """The compiled ``exclude`` patterns; ConfigError naming an invalid one."""
    from graphlint.static.files import _spec

    try:
        return _spec(patterns)
    except ValueError as exc:
        where = f" in {source}" if source else ""
        raise ConfigError(f"exclude: {exc}{where}") from None


def load(path: str | None = None, *, start: str = ".", explicit: bool = False) -> Config:
    """The configuration from ``path``, or the closest configuration file at or above ``start``
    (see :mod:`graphlint.config_files`)."""
    from graphlint.config_files import Resolver

    return Resolver(config_file=path).for_path(start)


def layer_of(section: dict, where: str) -> Layer:
    select = _codes(section["select"], "select", where) if "select" in section else None
    ignore = _codes(section.get("ignore", []), "ignore", where)
    ignore += _codes(section.get("extend-ignore", []), "extend-ignore", where)
    extend = _codes(section.get("extend-select", []), "extend-select", where)
    return Layer(None if select is None else tuple(select), tuple(extend), tuple(ignore))


def from_mapping(section: Any, *, source: str | None = None, root: str | None = None) -> Config:
    """One settings table (``[tool.graphlint]``, a marker's arguments) as a Config of its own."""
    where = f" in {source}" if source else ""
    if not isinstance(section, dict):
        raise ConfigError(f"[tool.graphlint] must be a table{where}")
    unknown = set(section) - KEYS
    if unknown:
        raise ConfigError(f"unknown setting {sorted(unknown)[0]!r}{where}")
    config = Config(source=source, root=root or os.getcwd()).with_layer(layer_of(section, where))
    config.exclude = _strings(section.get("exclude", []), "exclude", where)
    config.exclude += _strings(section.get("extend-exclude", []), "extend-exclude", where)
    config.per_file_ignores = _per_file_ignores(section, "per-file-ignores", where)
    config.per_file_ignores.update(_per_file_ignores(section, "extend-per-file-ignores", where))
    rules = section.get("rules", {})
    if not isinstance(rules, dict) or not all(isinstance(v, dict) for v in rules.values()):
        raise ConfigError(f"rules must be tables like [tool.graphlint.rules.GL302]{where}")
    config.rule_options = {str(k): dict(v) for k, v in rules.items()}
    force = section.get("force-exclude", False)
    if not isinstance(force, bool):
        raise ConfigError(f"force-exclude must be true or false{where}")
    config.force_exclude = force
    for key in ("cache-dir", "extend"):
        if not isinstance(section.get(key, ""), str):
            raise ConfigError(f"{key} must be a string (a path){where}")
    if section.get("cache-dir"):
        config.cache_dir = os.path.join(config.root, os.path.expanduser(section["cache-dir"]))
    return config


def _per_file_ignores(section: dict, key: str, where: str) -> dict[str, list[str]]:
    table = section.get(key, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{key} must be a table of glob = [codes]{where}")
    return {str(k): _codes(v, f"{key}.{k}", where) for k, v in table.items()}


def _strings(value: Any, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key} must be a list of strings{where}")
    return value


def _codes(value: Any, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        value = [c for c in re.split(r"[,\s]+", value) if c]
    codes = _strings(value, key, where)
    for code in codes:
        if code != "ALL" and not re.match(_CODE, code):
            raise ConfigError(f"{key}: {code!r} is not a rule code or prefix{where}")
    return ["" if c == "ALL" else c for c in codes]


def check_rule_options(config: Config, rule_classes: dict[str, type[Rule]]) -> None:
    """Thresholds must name a known option of a known rule and have its type; numbers >= 0."""
    by_name = {cls.name: cls for cls in rule_classes.values()}
    for key, opts in config.rule_options.items():
        cls = rule_classes.get(key) or by_name.get(key)
        if cls is None:
            raise ConfigError(f"[rules.{key}]: unknown rule (see `graphlint rules`)")
        for opt, value in opts.items():
            if opt not in cls.options:
                known = ", ".join(sorted(cls.options)) or "none"
                raise ConfigError(f"[rules.{key}]: unknown option {opt!r} (known: {known})")
            default = cls.options[opt]
            if isinstance(default, bool) != isinstance(value, bool) or not isinstance(
                value, type(default)
            ):
                raise ConfigError(
                    f"[rules.{key}] {opt} must be {type(default).__name__}, got {value!r}"
                )
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
                raise ConfigError(f"[rules.{key}] {opt} must not be negative, got {value!r}")
