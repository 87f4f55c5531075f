"""The static engine on an editor's buffers (graphlint.server).

:func:`check_source` checks a source as the content of its file without reading the file, in
the editor's workspace's :class:`~graphlint.static.model.project.Project`:
:meth:`~graphlint.static.model.project.Project.set_source` makes a buffer stand for its file
wherever an analysis follows an import to it. What the project read stays in memory between
checks (parsed modules, where imports lead): :meth:`~graphlint.static.model.project.Project.changed`
says which files changed, and returns the ones whose analyses read them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from graphlint.config import Config
from graphlint.static.engine import FileResult, check_file
from graphlint.static.model.project import Project

if TYPE_CHECKING:
    from graphlint.static.hits import StaticRule

__all__ = ["Project", "check_source"]


def check_source(path: str, data: bytes, rule_classes: Iterable[type[StaticRule]], config: Config, project: Project | None = None) -> FileResult:
    """What :func:`graphlint.static.engine.check_file` reports for the file ``path`` holding
    ``data`` (a ``.ipynb`` path: the notebook's JSON), with nothing read from ``path``; the
    modules its analysis follows are read in ``project`` (by default, one of its own)."""
    return check_file(path, rule_classes, config, data=data, project=project)
