"""A ``__pycache__`` file proves a source compiles only where that is safe (issue 23): in an
installed package, and for a timestamp pyc only when it was written after the source last
changed. A project's own file, or one edited in the second it was compiled in, to the same
size, gets its syntax check: its GL001 is never hidden by bytecode of an older text."""

from __future__ import annotations

import os
import py_compile
from pathlib import Path

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file

GOOD = "import os\nx = 1\n"
BROKEN = "import os\nx = (\n"  # the same size


def static_rules() -> list[type]:
    return [c for c in discover_rules(plugins=False).values() if c.checks_statically()]


def codes(path: Path) -> list[str]:
    return [f.code for f in check_file(str(path), static_rules(), Config(root=str(path.parent))).findings]


def compiled_then_broken(path: Path, source_mtime: int, pyc_mtime: int, broken_mtime: int) -> None:
    """GOOD compiled to a timestamp pyc naming its mtime and size, then BROKEN written in its
    place; every mtime set as given (nanoseconds)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(GOOD)
    os.utime(path, ns=(source_mtime, source_mtime))
    cached = py_compile.compile(str(path), doraise=True, invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    os.utime(cached, ns=(pyc_mtime, pyc_mtime))
    path.write_text(BROKEN)
    os.utime(path, ns=(broken_mtime, broken_mtime))


SECOND = 10**9
T = 1_700_000_000 * SECOND


def test_a_project_file_whose_bytecode_matches_by_mtime_and_size_keeps_its_gl001(tmp_path):
    """The issue's case: the pyc names the broken file's mtime and size (edited, mtime kept)."""
    path = tmp_path / "proj" / "plain.py"
    compiled_then_broken(path, T, T + 5 * SECOND, T)
    assert codes(path) == ["GL001"]


def test_an_installed_file_edited_in_the_second_it_was_compiled_keeps_its_gl001(tmp_path):
    path = tmp_path / "lib" / "site-packages" / "plain.py"
    compiled_then_broken(path, T + SECOND // 10, T + SECOND // 5, T + SECOND * 7 // 10)
    assert codes(path) == ["GL001"]
