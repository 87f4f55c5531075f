"""Configuration: ``[tool.graphlint]`` in the nearest pyproject.toml, or ``--config FILE``."""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any


def _toml():
    """The TOML reader, imported when a file is read (~7 ms at every start otherwise)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


#: Text that spells a TOML key without the letters of ``graphlint``: a quoted key's escapes.
_ESCAPES = (b"\\u", b"\\U")

_CODE = re.compile(r"^[A-Z]+[0-9]*$")
_KEYS = {"select", "extend-select", "ignore", "per-file-ignores", "rules", "exclude"}


class ConfigError(Exception):
    """Configuration graphlint cannot work with; the message is one line for the user."""


@dataclass
class Config:
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    rule_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str | None = None
    root: str = field(default_factory=os.getcwd)

    # -- selection -------------------------------------------------------------------------
    def is_selected(self, code: str) -> bool:
        """Ruff's semantics: the most specific of select/ignore wins; ``GL000`` is on by default."""
        select = (self.select if self.select is not None else [""]) + self.extend_select
        chosen = _longest_match(code, select)
        ignored = _longest_match(code, self.ignore)
        if chosen < 0:
            return False
        return ignored < 0 or chosen > ignored

    def ignored_for_path(self, code: str, path: str) -> bool:
        # relative to the configuration's folder, however the path was given (``./ign/x.py``
        # from a walk of ``.``, ``x.py`` from a subdirectory)
        try:
            rel = os.path.relpath(os.path.abspath(path), self.root).replace(os.sep, "/")
        except ValueError:  # another drive (Windows)
            rel = path.replace(os.sep, "/")
        for pattern, codes in self.per_file_ignores.items():
            if _path_matches(rel, pattern) and _longest_match(code, codes) >= 0:
                return True
        return False

    def options_for(self, rule_cls) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for key in (rule_cls.code, rule_cls.name):
            merged.update(self.rule_options.get(key, {}))
        return merged

    def validate(self, rule_classes: dict[str, type]) -> None:
        """Raise ConfigError for codes, rules or rule options (or their values) that do not exist."""
        from graphlint.findings import INTERNAL_ERROR_CODE

        self.validate_codes(set(rule_classes) | {INTERNAL_ERROR_CODE})
        check_rule_options(self, rule_classes)

    def validate_codes(self, known_codes: set[str]) -> None:
        """Every code or prefix named anywhere must match some known rule."""
        named = list(self.select or []) + self.extend_select + self.ignore
        for codes in self.per_file_ignores.values():
            named += codes
        for code in named:
            if code and not any(k.startswith(code) for k in known_codes):
                raise ConfigError(f"unknown rule code or prefix {code!r} (see `graphlint rules`)")


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


def find_pyproject(start: str) -> str | None:
    """The nearest pyproject.toml at or above ``start``."""
    here = os.path.abspath(start)
    if os.path.isfile(here):
        here = os.path.dirname(here)
    while True:
        candidate = os.path.join(here, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def load(path: str | None = None, *, start: str = ".", explicit: bool = False) -> Config:
    """Read the configuration from ``path`` or the nearest pyproject.toml above ``start``."""
    searched = path is None
    if searched:
        path = find_pyproject(start)
        if path is None:
            return Config()
    try:
        raw = _read_config(path)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"config path is a directory: {path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    if searched and b"graphlint" not in raw and not any(e in raw for e in _ESCAPES):
        # a project's pyproject.toml with no [tool.graphlint] (which would spell the name):
        # its folder is the root, with no settings, and a file that is not ours is not parsed
        return from_mapping({}, source=path, root=os.path.dirname(os.path.abspath(path)))
    tomllib = _toml()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"invalid TOML in {path}: {exc}") from None
    if os.path.basename(path) == "pyproject.toml" or "tool" in data:
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"`tool` must be a table like [tool.graphlint] in {path}")
        section = tool.get("graphlint", {})
    else:
        section = data.get("graphlint", data)
    return from_mapping(section, source=path, root=os.path.dirname(os.path.abspath(path)))


#: A configuration file is a few hundred bytes; anything this large is not one.
MAX_CONFIG_BYTES = 1024 * 1024


def _read_config(path: str) -> bytes:
    """The file's bytes: only a regular file is read (a FIFO would block, ``/dev/zero`` never
    end), and never more than :data:`MAX_CONFIG_BYTES`."""
    from graphlint.reading import FileTooLarge, NotRegularFile, read_regular

    if os.path.isdir(path):
        raise IsADirectoryError(path)
    try:
        return read_regular(path, MAX_CONFIG_BYTES)
    except NotRegularFile:
        raise ConfigError(f"config {path} is not a regular file") from None
    except FileTooLarge:
        raise ConfigError(f"config {path} is larger than {MAX_CONFIG_BYTES // 1024} KiB: not a configuration file") from None


def from_mapping(section: Any, *, source: str | None = None, root: str | None = None) -> Config:
    where = f" in {source}" if source else ""
    if not isinstance(section, dict):
        raise ConfigError(f"[tool.graphlint] must be a table{where}")
    unknown = set(section) - _KEYS
    if unknown:
        raise ConfigError(f"unknown setting {sorted(unknown)[0]!r}{where}")
    config = Config(source=source, root=root or os.getcwd())
    if "select" in section:
        config.select = _codes(section["select"], "select", where)
    config.extend_select = _codes(section.get("extend-select", []), "extend-select", where)
    config.ignore = _codes(section.get("ignore", []), "ignore", where)
    both = sorted(set((config.select or []) + config.extend_select) & set(config.ignore))
    if both:  # contradictory: say which one is meant
        raise ConfigError(f"{both[0] or 'ALL'!r} is both selected and ignored{where}")
    config.exclude = _strings(section.get("exclude", []), "exclude", where)
    pfi = section.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"per-file-ignores must be a table of glob = [codes]{where}")
    config.per_file_ignores = {
        str(k): _codes(v, f"per-file-ignores.{k}", where) for k, v in pfi.items()
    }
    rules = section.get("rules", {})
    if not isinstance(rules, dict) or not all(isinstance(v, dict) for v in rules.values()):
        raise ConfigError(f"rules must be tables like [tool.graphlint.rules.GL302]{where}")
    config.rule_options = {str(k): dict(v) for k, v in rules.items()}
    return config


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
        if code != "ALL" and not _CODE.match(code):
            raise ConfigError(f"{key}: {code!r} is not a rule code or prefix{where}")
    return ["" if c == "ALL" else c for c in codes]


def check_rule_options(config: Config, rule_classes: dict[str, type]) -> None:
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
