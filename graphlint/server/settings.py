"""The client's settings, and the configuration each file is checked with.

Settings come from the editor (``initializationOptions.settings``, then ``workspace/configuration``
section ``graphlint``, per workspace folder), named as ruff's server names the same things:

- ``configuration``: a graphlint TOML file (a ``pyproject.toml`` with ``[tool.graphlint]``, or the
  table alone), as ``graphlint check --config``; ``~`` and ``$VARS`` expanded, relative to the folder;
- ``configurationPreference``: ``editorFirst`` (default: the editor's ``lint.*`` codes over the
  files', as ``--select``/``--ignore`` over them), ``filesystemFirst`` (a file's ``[tool.graphlint]``
  over the editor's) or ``editorOnly`` (project files are not read);
- ``lint.enable``, ``lint.select``, ``lint.extendSelect``, ``lint.ignore``; ``lint.run``: ``onType``
  (default) or ``onSave`` (as ruff-lsp); ``lint.debounce``: milliseconds of quiet before a check
  after a change (default 0: a change starts a check when none is running, later ones wait for it);
- ``fixAll``, ``codeAction.fixViolation.enable``, ``codeAction.disableRuleComment.enable``,
  ``showSyntaxErrors`` (GL001).

Without ``configuration``, a file is checked with the closest ``pyproject.toml`` above it
(graphlint.config), read again when the editor says a ``pyproject.toml`` changed.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Callable

from graphlint.config import Config, ConfigError, from_mapping, load

PREFERENCES = ("editorFirst", "filesystemFirst", "editorOnly")


@dataclass(frozen=True)
class Settings:
    configuration: str | None = None
    configuration_preference: str = "editorFirst"
    enable: bool = True
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    run: str = "onType"
    debounce: float = 0.0  # seconds
    fix_all: bool = True
    fix_violation: bool = True
    disable_rule_comment: bool = True
    show_syntax_errors: bool = True

    def merged(self, raw: Any, warn: Callable[[str], None]) -> "Settings":
        """These settings with the client's ``raw`` ones (a JSON object) over them; a value
        of the wrong type is left out with a warning."""
        if not isinstance(raw, dict):
            return self
        lint = raw.get("lint") if isinstance(raw.get("lint"), dict) else {}
        actions = raw.get("codeAction") if isinstance(raw.get("codeAction"), dict) else {}
        found: dict[str, Any] = {}

        def take(field: str, name: str, value: Any, kind, check=lambda v: True) -> None:
            if value is None:
                return
            if isinstance(value, kind) and not (kind is not bool and isinstance(value, bool)) and check(value):
                found[field] = value
            else:
                warn(f"graphlint: setting {name} = {value!r} is not valid (left out)")

        take("configuration", "configuration", raw.get("configuration"), str)
        take("configuration_preference", "configurationPreference", raw.get("configurationPreference"), str, lambda v: v in PREFERENCES)
        take("enable", "enable", raw.get("enable"), bool)
        if "enable" in lint:
            take("enable", "lint.enable", lint["enable"], bool)
        for field, name in (("select", "select"), ("extend_select", "extendSelect"), ("ignore", "ignore")):
            take(field, f"lint.{name}", lint.get(name), list, lambda v: all(isinstance(c, str) for c in v))
            if field in found:
                found[field] = tuple(c.strip().upper() for c in found[field] if c.strip())
                if field == "select" and not found[field]:
                    del found[field]  # an empty list, as editors fill in: not set
        take("run", "lint.run", lint.get("run"), str, lambda v: v in ("onType", "onSave"))
        take("debounce", "lint.debounce", lint.get("debounce"), (int, float), lambda v: 0 <= v <= 60_000)
        if "debounce" in found:
            found["debounce"] = found["debounce"] / 1000
        take("fix_all", "fixAll", raw.get("fixAll"), bool)
        for field, name in (("fix_violation", "fixViolation"), ("disable_rule_comment", "disableRuleComment")):
            entry = actions.get(name)
            take(field, f"codeAction.{name}.enable", entry.get("enable") if isinstance(entry, dict) else entry, bool)
        take("show_syntax_errors", "showSyntaxErrors", raw.get("showSyntaxErrors"), bool)
        return dataclasses.replace(self, **found)


def _sets_anything(config: Config) -> bool:
    return bool(
        config.select is not None or config.extend_select or config.ignore or config.per_file_ignores
        or config.rule_options or config.exclude
    )


class Configs:
    """The :class:`Config` of each file, validated against the rules, kept until a
    configuration file changes (:meth:`clear`)."""

    def __init__(self, rules: dict[str, type]):
        self.rules = rules
        self._files: dict[tuple, Config | ConfigError] = {}
        self._resolved: dict[tuple, Config | ConfigError] = {}

    def clear(self) -> None:
        self._files.clear()
        self._resolved.clear()

    def for_file(self, path: str, settings: Settings, folder: str | None) -> Config:
        """The configuration ``path`` is checked with. Raises :class:`ConfigError` (one line
        for the user) when it cannot be read or names what does not exist."""
        key = (os.path.dirname(path), settings, folder)
        if key not in self._resolved:
            try:
                self._resolved[key] = self._resolve(path, settings, folder)
            except ConfigError as exc:
                self._resolved[key] = exc
        found = self._resolved[key]
        if isinstance(found, ConfigError):
            raise found
        return found

    def _file(self, path: str | None, start: str) -> Config:
        key = (path, start if path is None else None)
        if key not in self._files:
            try:
                self._files[key] = load(path, start=start)
            except ConfigError as exc:
                self._files[key] = exc
        found = self._files[key]
        if isinstance(found, ConfigError):
            raise found
        return dataclasses.replace(found)  # a copy: the editor's codes are added to it

    def _resolve(self, path: str, settings: Settings, folder: str | None) -> Config:
        chosen = None
        if settings.configuration:
            chosen = os.path.expandvars(os.path.expanduser(settings.configuration))
            if not os.path.isabs(chosen):
                chosen = os.path.join(folder or os.getcwd(), chosen)
        preference = settings.configuration_preference
        start = os.path.dirname(path) if os.path.isabs(path) else (folder or os.getcwd())
        if preference == "editorOnly":
            config = self._file(chosen, start) if chosen else Config(root=folder or os.getcwd())
        elif preference == "filesystemFirst":
            config = self._file(None, start)
            if chosen and not _sets_anything(config):
                config = self._file(chosen, start)
        else:
            config = self._file(chosen, start) if chosen else self._file(None, start)
        if config.source is None and folder:
            config.root = folder
        editor = from_mapping(
            {"select": list(settings.select or ()), "extend-select": list(settings.extend_select), "ignore": list(settings.ignore)},
            source="the editor's settings",
        )
        if settings.select is None:
            editor.select = None
        if preference == "filesystemFirst":
            config.select = config.select if config.select is not None else editor.select
            config.extend_select = config.extend_select or editor.extend_select
            config.ignore = config.ignore or editor.ignore
        else:  # the editor's codes as the command line's (graphlint.cli)
            if editor.select is not None:
                config.select = editor.select
            config.extend_select = config.extend_select + editor.extend_select
            config.ignore = config.ignore + editor.ignore
        config.validate(self.rules)
        return config
