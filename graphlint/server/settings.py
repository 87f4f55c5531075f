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

Without ``configuration``, a file is checked with the closest configuration file above it, as
``graphlint check`` finds it (graphlint.config_files: ``.graphlint.toml``, ``graphlint.toml``, a
``pyproject.toml`` with ``[tool.graphlint]``), read again when the editor says one changed.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Callable

from graphlint.config import Config, ConfigError, Layer, layer_of
from graphlint.config_files import Resolver

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
        lint = raw.get("lint")
        if not isinstance(lint, dict):
            lint = {}
        actions = raw.get("codeAction")
        if not isinstance(actions, dict):
            actions = {}
        found: dict[str, Any] = {}

        def take(
            field: str, name: str, value: Any, kind: type | tuple[type, ...],
            check: Callable[[Any], bool] = lambda v: True,
        ) -> None:
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
    """The :class:`Config` of each file (graphlint.config_files: the closest configuration file,
    as ``graphlint check`` finds it; the editor's codes as a layer on it, as the command line's),
    validated against the rules, kept until a configuration file changes (:meth:`clear`)."""

    def __init__(self, rules: dict[str, type]):
        self.rules = rules
        self._resolvers: dict[tuple, Resolver] = {}
        self._resolved: dict[tuple, Config | ConfigError] = {}

    def clear(self) -> None:
        self._resolvers.clear()
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

    def _resolver(self, chosen: str | None, folder: str | None, layer: Layer | None = None) -> Resolver:
        key = (chosen, folder, layer)
        if key not in self._resolvers:
            self._resolvers[key] = Resolver(config_file=chosen, layer=layer, cwd=folder or os.getcwd())
        return self._resolvers[key]

    def _resolve(self, path: str, settings: Settings, folder: str | None) -> Config:
        chosen = None
        if settings.configuration:
            chosen = os.path.expandvars(os.path.expanduser(settings.configuration))
            if not os.path.isabs(chosen):
                chosen = os.path.join(folder or os.getcwd(), chosen)
        codes = {"extend-select": list(settings.extend_select), "ignore": list(settings.ignore)}
        if settings.select is not None:
            codes["select"] = list(settings.select)
        layer = layer_of(codes, " in the editor's settings")
        at = path if os.path.isabs(path) else (folder or os.getcwd())
        preference = settings.configuration_preference
        if preference == "editorOnly":
            base = self._resolver(chosen, folder).for_path(at) if chosen else Config(root=folder or os.getcwd())
            config = base.with_layer(layer)
        elif preference == "filesystemFirst":
            config = self._resolver(None, folder).for_path(at)
            if config.source is None and chosen:
                config = self._resolver(chosen, folder).for_path(at)
            if not _sets_anything(config):
                config = config.with_layer(layer)
        else:  # the editor's codes over the files', as the command line's
            config = self._resolver(chosen, folder, layer).for_path(at)
        config.validate(self.rules)
        return config
