"""The static engine on an editor's buffers (graphlint.server).

:func:`check_source` checks a source as the content of its file without reading the file;
:func:`graphlint.static.model.project.set_source` makes a buffer stand for its file wherever an
analysis follows an import to it. What the process read stays in memory between checks
(parsed modules, where imports lead): :func:`graphlint.static.model.project.changed` says which
files changed, and returns the ones whose analyses read them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from graphlint.config import Config
from graphlint.static.engine import FileResult, check_file
from graphlint.static.model.project import changed, set_source

if TYPE_CHECKING:
    from graphlint.static.hits import StaticRule

__all__ = ["changed", "check_source", "set_source"]


def check_source(path: str, data: bytes, rule_classes: Iterable[type[StaticRule]], config: Config) -> FileResult:
    """What :func:`graphlint.static.engine.check_file` reports for the file ``path`` holding
    ``data`` (a ``.ipynb`` path: the notebook's JSON), with nothing read from ``path``."""
    return check_file(path, rule_classes, config, data=data)
