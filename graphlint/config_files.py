"""Which configuration file applies to a checked file, as ruff finds its own.

For each file, the closest folder at or above it that holds ``.graphlint.toml``,
``graphlint.toml`` (settings at the top level, or under ``[graphlint]``) or a
``pyproject.toml`` with a ``[tool.graphlint]`` table, in that order of precedence within one
folder; a ``pyproject.toml`` without the table is passed over. Settings are not merged across
folders: a file inherits another's only through ``extend = "../pyproject.toml"`` (paths in
each file relative to its own folder; ``extend-select``, ``extend-ignore``, ``extend-exclude``
and ``extend-per-file-ignores`` add to what the extended file says, the other settings replace
it). ``--config FILE`` applies one file to every checked file, its paths relative to the
current folder. The command line overrides every file (:meth:`Resolver.for_path`).

The *project root* — where ``.graphlint_cache`` goes — is the folder of the configuration
file, else of the closest ``pyproject.toml``, else the current folder.
"""

from __future__ import annotations

import os
import re
import sys

from graphlint.config import Config, ConfigError, Layer, from_mapping, layer_of

#: In one folder, the first of these that holds settings wins (``.ruff.toml``, ``ruff.toml``,
#: ``pyproject.toml`` for ruff).
NAMES = (".graphlint.toml", "graphlint.toml", "pyproject.toml")
#: A configuration file is a few hundred bytes; anything this large is not one.
MAX_CONFIG_BYTES = 1024 * 1024
#: Text that spells a TOML key without the letters of ``graphlint``: a quoted key's escapes.
_ESCAPES = (b"\\u", b"\\U")
#: ``tool = ...``: a pyproject.toml whose ``tool`` is not a table is an error, as for ruff.
_TOOL_KEY = re.compile(rb"""^[ \t]*["']?tool["']?[ \t]*=""", re.M)
#: The lines that can make ``tool.graphlint`` a table in a pyproject.toml: a table header that
#: names ``tool`` and then ``graphlint`` (``[tool.graphlint]``, ``[[ "tool".graphlint.x ]]``),
#: the header ``[tool]`` itself (its keys may be ``graphlint...``), and a top-level key ``tool``
#: (``tool.graphlint.select = ...``, ``tool = {graphlint = ...}``), also after bytes TOML
#: rejects (a BOM: the parse says so). TOML defines a table nowhere else; a match inside a
#: multi-line string only costs a parse for nothing. Many projects name graphlint in a
#: pyproject.toml without the table (a dependency, a script, a hook): their file is not parsed
#: (tomllib's import and the parse: ~17M instructions, 5% of a one-file check).
_MAY_HOLD_THE_TABLE = re.compile(
    rb"""\[[^\n]*tool[^\n]*graphlint|\[[ \t]*["']?tool["']?[ \t]*\]|^[^\w"'\[\n]*["']?tool["']?[ \t]*[.=]""", re.M
)
_MAX_EXTENDS = 32


def _toml():
    """The TOML reader, imported when a file is read (~7 ms at every start otherwise)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


def read_config(real: str, shown: str | None = None) -> bytes:
    """The file's bytes: only a regular file is read (a FIFO would block, ``/dev/zero`` never
    end), and never more than :data:`MAX_CONFIG_BYTES`. Errors name it ``shown`` (as given)."""
    from graphlint.reading import FileTooLarge, NotRegularFile, read_regular

    path = shown or real
    if os.path.isdir(real):
        raise ConfigError(f"config path is a directory: {path}")
    try:
        data = read_regular(real, MAX_CONFIG_BYTES)
    except NotRegularFile:
        raise ConfigError(f"config {path} is not a regular file") from None
    except FileTooLarge:
        raise ConfigError(f"config {path} is larger than {MAX_CONFIG_BYTES // 1024} KiB: not a configuration file") from None
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    return data


def section_of(path: str, raw: bytes) -> dict | None:
    """The graphlint settings table of a configuration file, or None: a pyproject.toml
    without ``[tool.graphlint]`` (not parsed when its bytes cannot spell one)."""
    pyproject = os.path.basename(path) == "pyproject.toml"
    if pyproject and not _may_hold_the_table(raw):
        return None
    tomllib = _toml()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"invalid TOML in {path}: {exc}") from None
    if pyproject or "tool" in data:
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"`tool` must be a table like [tool.graphlint] in {path}")
        if "graphlint" not in tool:
            return None if pyproject else {}
        section = tool["graphlint"]
    else:
        section = data.get("graphlint", data)
    if not isinstance(section, dict):
        raise ConfigError(f"[tool.graphlint] must be a table in {path}")
    return section


def _may_hold_the_table(raw: bytes) -> bool:
    """Whether a pyproject.toml's bytes can spell ``[tool.graphlint]`` (or a ``tool`` that is no
    table, an error): a key spelled with escapes, or one of the lines that define tables."""
    if any(e in raw for e in _ESCAPES) or _TOOL_KEY.search(raw):
        return True
    return b"graphlint" in raw and _MAY_HOLD_THE_TABLE.search(raw) is not None


class Resolver:
    """The configuration of each checked path: the closest file's settings (with its
    ``extend`` chain), then the command line's ``layer`` on top; memoised per folder."""

    def __init__(self, config_file: str | None = None, layer: Layer | None = None, cwd: str | None = None):
        self.cwd = cwd or os.getcwd()
        self.layer = layer or Layer()
        self._by_dir: dict[str, Config] = {}
        self._files: dict[tuple[str, str | None], Config] = {}  # (path, root) -> its config
        self.fixed: Config | None = None
        if config_file is not None:
            # `--config FILE`: for every file, its relative paths from the current folder
            self.fixed = self._top(self._named(os.path.abspath(config_file), root=self.cwd, shown=config_file))

    def for_path(self, path: str) -> Config:
        if self.fixed is not None:
            return self.fixed
        here = os.path.abspath(path)
        if not os.path.isdir(here):
            here = os.path.dirname(here)
        chain = []
        found = None
        while True:
            known = self._by_dir.get(here)
            if known is not None:
                found = known
                break
            chain.append(here)
            found = self._in_folder(here)
            if found is not None:
                found = self._top(found)
                break
            parent = os.path.dirname(here)
            if parent == here:
                found = self._top(Config(root=self._root_without_config(path)))
                break
            here = parent
        for folder in chain:
            self._by_dir[folder] = found
        return found

    def excluded(self, path: str, is_dir: bool) -> bool:
        """The exclusion of the configuration that applies to ``path`` (for a walk)."""
        return self.for_path(path).excluded(path, is_dir)

    def configs(self) -> list[Config]:
        """Every configuration resolved so far, each once."""
        seen = {id(c): c for c in self._by_dir.values()}
        if self.fixed is not None:
            seen[id(self.fixed)] = self.fixed
        return list(seen.values())

    # -- files ------------------------------------------------------------------------------
    def _top(self, config: Config) -> Config:
        return config.with_layer(self.layer)

    def _in_folder(self, folder: str) -> Config | None:
        for name in NAMES:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                config = self._load(candidate, searched=True)
                if config is not None:
                    return config
        return None

    def _root_without_config(self, path: str) -> str:
        """The project root when no file has settings: the closest pyproject.toml's folder."""
        here = os.path.abspath(path)
        while True:
            if os.path.isfile(os.path.join(here, "pyproject.toml")):
                return here if os.path.isdir(here) else os.path.dirname(here)
            parent = os.path.dirname(here)
            if parent == here:
                return self.cwd
            here = parent

    def _named(self, path: str, **how) -> Config:
        """:meth:`_load` of a file named (``--config``, ``extend``), not searched for: never None."""
        config = self._load(path, **how)
        assert config is not None, "only a file searched for may lack [tool.graphlint]"
        return config

    def _load(self, path: str, *, root: str | None = None, searched: bool = False, depth: int = 0,
              shown: str | None = None) -> Config | None:
        key = (path, root)
        if key in self._files:
            return self._files[key]
        shown = shown or (os.path.relpath(path, self.cwd) if path.startswith(self.cwd + os.sep) else path)
        raw = read_config(path, shown)
        section = section_of(shown, raw)
        if section is None:
            if not searched:  # --config naming a pyproject.toml without the table: defaults
                return Config(source=path, root=root or os.path.dirname(path))
            return None
        config = from_mapping(section, source=shown, root=root or os.path.dirname(path))
        base_name = section.get("extend")
        if base_name:
            if depth >= _MAX_EXTENDS:
                raise ConfigError(f"extend: a chain of more than {_MAX_EXTENDS} files (a cycle?) in {shown}")
            base_path = os.path.normpath(os.path.join(os.path.dirname(path), os.path.expanduser(base_name)))
            base = self._named(base_path, depth=depth + 1)
            config = _extended(base, config, section)
        self._files[key] = config
        return config


def _extended(base: Config, child: Config, section: dict) -> Config:
    """``child`` (read from ``section``) on top of ``base``: its selection as a layer, its
    other settings replacing the base's, the ``extend-*`` ones added to them."""
    merged = base.with_layer(layer_of(section, f" in {child.source}"))
    own_exclude = _has(section, "exclude")
    inherited_exclude = [] if own_exclude else [(base.root, base.exclude), *base.inherited_exclude]
    own_pfi = _has(section, "per-file-ignores")
    inherited_pfi = [] if own_pfi else [(base.root, base.per_file_ignores), *base.inherited_per_file_ignores]
    rules = {k: dict(v) for k, v in base.rule_options.items()}
    for key, options in child.rule_options.items():
        rules.setdefault(key, {}).update(options)
    return merged.replace(
        source=child.source,
        root=child.root,
        exclude=child.exclude,
        inherited_exclude=inherited_exclude,
        per_file_ignores=child.per_file_ignores,
        inherited_per_file_ignores=inherited_pfi,
        rule_options=rules,
        force_exclude=section.get("force-exclude", base.force_exclude),
        cache_dir=child.cache_dir or base.cache_dir,
    )


def _has(section: dict, key: str) -> bool:
    return key in section
