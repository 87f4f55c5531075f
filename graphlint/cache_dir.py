"""Where ``graphlint check`` keeps its cache, and ``graphlint clean``.

The folder is, first found: ``--cache-dir``, ``GRAPHLINT_CACHE_DIR``, the ``cache-dir``
setting (relative to its configuration file), else ``.graphlint_cache`` in the project root
(:mod:`graphlint.config_files`): ``cd elsewhere && graphlint check /path/to/proj/src`` uses
``/path/to/proj/.graphlint_cache``, as ruff's ``.ruff_cache``.

``graphlint clean`` removes only what graphlint wrote there: its cache files (``<format>/<key>.json``
beginning with the cache's mark), the temporary files of writers killed while they wrote one
(``<format>/.<key>.json.<random>.tmp``, a beginning of the same) and the ``.gitignore`` it wrote; a folder of graphlint's left
empty goes too, never an empty folder of the user's. It never follows a symbolic link and never
deletes a file of another shape.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from graphlint.static.cache import DIRECTORY, DIRECTORY_ENV, OWN_NAME, TEMP_NAME, own_file

if TYPE_CHECKING:
    from graphlint.config import Config

_IGNORE_HEADER = "# Automatically created by graphlint."


def cache_folder(config: Config, given: str | None = None) -> str:
    """The cache folder for the files ``config`` applies to."""
    if given:
        return os.path.abspath(given)
    env = os.environ.get(DIRECTORY_ENV)
    if env:
        return os.path.abspath(env)
    if config.cache_dir:
        return config.cache_dir
    return os.path.join(config.root, DIRECTORY)


def _ours(path: str, partial: bool = False) -> bool:
    """A cache file graphlint wrote (``partial``: a temporary one a killed writer left), as
    :func:`graphlint.static.cache.own_file` tells."""
    try:
        return own_file(path, os.lstat(path), partial=partial)
    except OSError:
        return False


def clean(folder: str) -> int:
    """Remove graphlint's files from the cache ``folder``; how many were removed. A folder
    goes too once empty, when graphlint made it: a format folder it removed files from, the
    cache folder whose ``.gitignore`` it wrote (only one it created has one). An empty folder
    of the user's (``GRAPHLINT_CACHE_DIR=~/ci``, its ``2024/``) stays."""
    removed = 0
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return 0
        subdirs = [e for e in os.scandir(folder) if e.is_dir(follow_symlinks=False) and e.name.isdigit()]
    except OSError:
        return 0
    for sub in subdirs:
        try:
            entries = list(os.scandir(sub.path))
        except OSError:
            continue
        mine = 0
        for entry in entries:
            if (OWN_NAME.fullmatch(entry.name) and _ours(entry.path)) or (TEMP_NAME.fullmatch(entry.name) and _ours(entry.path, partial=True)):
                try:
                    os.unlink(entry.path)
                    mine += 1
                except OSError:
                    pass
        if mine:
            _rmdir(sub.path)
        removed += mine
    ignore = os.path.join(folder, ".gitignore")
    try:
        if stat.S_ISREG(os.lstat(ignore).st_mode):
            with open(ignore, encoding="utf-8") as fh:
                made = fh.read(200).startswith(_IGNORE_HEADER)
            if made:
                os.unlink(ignore)
                removed += 1
                _rmdir(folder)
    except (OSError, UnicodeDecodeError):
        pass
    return removed


def _rmdir(path: str) -> None:
    try:
        os.rmdir(path)  # only when empty
    except OSError:
        pass
