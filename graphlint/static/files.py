"""Which files ``graphlint check`` reads: the paths given, directories walked for ``*.py``
and ``*.ipynb``.

Directory walks skip the usual tool and environment directories, ``[tool.graphlint] exclude``
patterns (gitignore syntax, relative to the configuration's directory) and, inside a git work
tree, what ``.gitignore`` files (and ``.git/info/exclude``) ignore, matched with ``pathspec``.
A file named on the command line is checked even if ``.gitignore`` ignores it, but ``exclude``
still applies (pre-commit passes every staged file by name). A directory named on the command
line that is itself git-ignored (a virtualenv, say) is walked without ``.gitignore``.

As ruff's walker, a walk never enters a symlink to a folder (a virtualenv, a dependency, a
link back up the tree or out of it): such a folder is walked only when it is named on the
command line. A symlink to a file is checked as the file it names.

The command line passes its own predicates (``excluded``: each folder's configuration,
``named_excluded``: ruff's rule that a path named on the command line is checked unless
``--force-exclude``); see :mod:`graphlint.config_files`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from graphlint.config import Config, ConfigError
from graphlint.reading import read_regular

if TYPE_CHECKING:
    import pathspec

DEFAULT_EXCLUDE = frozenset(
    {
        ".bzr", ".direnv", ".eggs", ".git", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
        ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", ".vscode",
        "__pycache__", "__pypackages__", "_build", "buck-out", "node_modules", "site-packages",
        "venv",
    }
)
SUFFIXES = (".py", ".ipynb")  # notebooks: graphlint.static.notebook
#: A ``.gitignore`` (or ``.git/info/exclude``) is read up to this size.
MAX_IGNORE_BYTES = 10 * 1024 * 1024


def _spec(lines) -> "pathspec.PathSpec":
    """A spec of valid patterns; raises ValueError naming the first invalid one."""
    import pathspec  # here: a file named on the command line with no exclude never needs it

    lines = list(lines)
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        spec.match_file("x")  # some patterns only fail when their regex is compiled
    except Exception as exc:  # pathspec's own errors, re.error: the pattern is at fault
        bad = next((line for line in lines if not _valid(line)), None)
        raise ValueError(f"invalid pattern {bad!r}" if bad is not None else str(exc)) from None
    return spec


def _valid(line: str) -> bool:
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line]).match_file("x")
    except Exception:
        return False
    return True


def _lenient_spec(lines) -> "pathspec.PathSpec":
    """A ``.gitignore``'s spec: invalid lines are left out, as git itself ignores them."""
    import pathspec

    try:
        return _spec(lines)
    except ValueError:
        return pathspec.GitIgnoreSpec.from_lines([line for line in lines if _valid(line)])


class _Ignores:
    """The .gitignore specs that apply under a directory: (directory, spec) pairs."""

    def __init__(self, specs: list | None = None) -> None:
        self.specs: list = [] if specs is None else specs

    def ignored(self, path: str, is_dir: bool) -> bool:
        for base, spec in self.specs:
            rel = os.path.relpath(path, base).replace(os.sep, "/")
            if rel.startswith("../"):
                continue
            if spec.match_file(rel + "/" if is_dir else rel):
                return True
        return False

    def with_dir(self, directory: str) -> "_Ignores":
        spec = _read_spec(os.path.join(directory, ".gitignore"))
        return _Ignores(self.specs + [(directory, spec)]) if spec is not None else self


def _read_spec(path: str) -> "pathspec.PathSpec | None":
    try:  # a FIFO or a device named .gitignore is no ignore file, and never blocks the walk
        lines = read_regular(path, MAX_IGNORE_BYTES).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    return _lenient_spec(lines) if any(line.strip() and not line.startswith("#") for line in lines) else None


def git_root(path: str) -> str | None:
    here = os.path.abspath(path)
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _git_ignores(directory: str) -> _Ignores | None:
    """The .gitignore files from the work tree's root down to ``directory``."""
    root = git_root(directory)
    if root is None:
        return None
    ignores = _Ignores()
    info = _read_spec(os.path.join(root, ".git", "info", "exclude"))
    if info is not None:
        ignores.specs.append((root, info))
    here = os.path.abspath(directory)
    chain = []
    while True:
        chain.append(here)
        if here == root:
            break
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    for d in reversed(chain):
        ignores = ignores.with_dir(d)
    return ignores


def collect(
    paths: list[str], config: Config, *, respect_gitignore: bool = True, warn=None, excluded=None, named_excluded=None
) -> list[str]:
    """The files to check, in a stable order, each once. Raises ConfigError for a missing path
    or an invalid ``exclude`` pattern; ``warn`` hears of directories that cannot be read.
    ``excluded(path, is_dir)`` (default: ``config``'s exclude) decides in walks,
    ``named_excluded(path, is_dir)`` (default: the same) for the paths given."""
    if excluded is None:
        try:
            exclude = _spec(config.exclude) if config.exclude else None
        except ValueError as exc:
            where = f" in {config.source}" if config.source else ""
            raise ConfigError(f"exclude: {exc}{where}") from None
        root = config.root

        def excluded(path: str, is_dir: bool) -> bool:
            if exclude is None:
                return False
            rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
            if rel.startswith("../"):
                return False
            return exclude.match_file(rel + "/" if is_dir else rel)

    if named_excluded is None:
        named_excluded = excluded

    found: list[str] = []
    seen: set[str] = set()

    def add(path: str, real: str | None = None) -> None:
        key = real or os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            found.append(path)

    for given in paths:
        path = os.path.normpath(given)
        if os.path.lexists(path) and not os.path.isdir(path):
            # a file named by the user, regular or not: the engine reads only regular files
            # and says so (GL001) for a FIFO or a device
            if not named_excluded(path, False):
                add(path)
            continue
        if not os.path.isdir(path):
            raise ConfigError(f"no such file or directory: {given}")
        if named_excluded(path, True):
            continue
        ignores = _git_ignores(path) if respect_gitignore else None
        if ignores is not None and ignores.ignored(os.path.abspath(path), True):
            ignores = None  # the user asked for this directory by name
        _walk(path, ignores, excluded, add, warn)
    return found


def _walk(top: str, ignores: _Ignores | None, excluded, add, warn=None) -> None:
    stack = [(top, ignores)]
    visited: set[str] = set()  # real paths: links back up the tree (or two to `.`) end here
    while stack:
        directory, ign = stack.pop()
        real = os.path.realpath(directory)
        if real in visited:
            continue
        visited.add(real)
        if ign is not None and directory != top:
            ign = ign.with_dir(os.path.abspath(directory))
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if warn is not None:
                warn(f"graphlint: warning: cannot read directory {directory}: {exc.strerror or exc} (skipped)")
            continue
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
                is_file = not is_dir and entry.is_file()  # a FIFO or a device is never read
            except OSError:
                continue
            if not is_dir and not is_file:
                continue
            if is_dir:
                if entry.name in DEFAULT_EXCLUDE or excluded(entry.path, True):
                    continue
                if entry.is_symlink():  # as ruff: a linked folder is entered only when named
                    continue
                if ign is not None and ign.ignored(os.path.abspath(entry.path), True):
                    continue
                subdirs.append(entry.path)
            elif entry.name.endswith(SUFFIXES):
                if excluded(entry.path, False):
                    continue
                if ign is not None and ign.ignored(os.path.abspath(entry.path), False):
                    continue
                # a file that is no symlink, in a directory whose real path is known: its real
                # path without a system call per component of it
                add(entry.path, None if entry.is_symlink() else os.path.join(real, entry.name))
        for sub in reversed(subdirs):
            stack.append((sub, ign))
