"""`graphlint check --fix` rewrites a file in place and keeps what it is (issue 23): its owner,
mode, hard links and symlinks stay; a read-only file, or one in a read-only folder, is left
whole with one line on stderr — also when graphlint runs as root, as in CI containers, where
the permission bits alone would not stop a write."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphlint.cli import main

FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"
FIXED = "import tensorflow as tf\nwith tf.Graph().as_default():\n    pass\n"


def fix(*paths):
    """`graphlint check --fix --no-cache PATHS` in-process: (exit code, stdout, stderr)."""
    result = CliRunner().invoke(main, ["check", "--fix", "--no-cache", *map(str, paths)], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def lines_naming(text: str, name: str) -> list[str]:
    return [line for line in text.splitlines() if name in line]


def test_a_read_only_file_is_left_whole_with_one_line(tmp_path):
    target, other = tmp_path / "ro.py", tmp_path / "rw.py"
    target.write_text(FIXABLE)
    other.write_text(FIXABLE)
    target.chmod(0o444)
    code, out, err = fix(target, other)
    assert target.read_text() == FIXABLE and stat.S_IMODE(target.stat().st_mode) == 0o444
    (line,) = lines_naming(err, "ro.py")
    assert line.startswith("graphlint: cannot fix ") and ("read-only" in line or "Permission denied" in line)
    assert "ro.py:2:6: GL103" in out and code == 1  # its finding is still reported
    assert other.read_text() == FIXED  # the others are fixed


def test_a_file_in_a_read_only_folder_is_left_whole_with_one_line(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    target = folder / "a.py"
    target.write_text(FIXABLE)
    folder.chmod(0o555)
    try:
        code, out, err = fix(target)
        names = sorted(p.name for p in folder.iterdir())
    finally:
        folder.chmod(0o755)
    assert target.read_text() == FIXABLE and names == ["a.py"]
    (line,) = lines_naming(err, "a.py")
    assert line.startswith("graphlint: cannot fix ") and "left unchanged" in line
    assert "a.py:2:6: GL103" in out and code == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_a_file_of_another_user_keeps_its_owner_and_group(tmp_path):
    target = tmp_path / "theirs.py"
    target.write_text(FIXABLE)
    os.chown(target, 65534, 65534)
    code, _, err = fix(target)
    assert code == 0, err
    assert target.read_text() == FIXED
    assert (target.stat().st_uid, target.stat().st_gid) == (65534, 65534)


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o664])
def test_the_mode_is_kept(tmp_path, mode):
    target = tmp_path / "a.py"
    target.write_text(FIXABLE)
    target.chmod(mode)
    assert fix(target)[0] == 0
    assert target.read_text() == FIXED and stat.S_IMODE(target.stat().st_mode) == mode


def test_a_hard_link_elsewhere_sees_the_fixed_text(tmp_path):
    target = tmp_path / "a.py"
    target.write_text(FIXABLE)
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "same.py"
    os.link(target, link)
    inode = target.stat().st_ino
    assert fix(target)[0] == 0
    assert link.read_text() == FIXED and target.stat().st_ino == inode == link.stat().st_ino


def test_a_symlink_stays_a_symlink_to_the_fixed_file(tmp_path):
    real = tmp_path / "real.py"
    real.write_text(FIXABLE)
    alias = tmp_path / "alias.py"
    alias.symlink_to(real.name)
    assert fix(alias)[0] == 0
    assert alias.is_symlink() and os.readlink(alias) == real.name and real.read_text() == FIXED


def test_nothing_is_left_beside_a_fixed_file(tmp_path):
    target = tmp_path / "a.py"
    target.write_text(FIXABLE)
    assert fix(target)[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_a_notebook_is_fixed_in_place(tmp_path):
    doc = {
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": FIXABLE}],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    target = tmp_path / "nb.ipynb"
    target.write_text(json.dumps(doc, indent=1))
    link = tmp_path / "link.ipynb"
    os.link(target, link)
    assert fix(target)[0] == 0
    assert json.loads(link.read_text())["cells"][0]["source"] == FIXED


def test_a_file_changed_since_it_was_read_is_left_alone(tmp_path, monkeypatch):
    """The bytes are compared on the descriptor that is written: a file rewritten by another
    program between the check and the fix keeps that program's text."""
    from graphlint.static import fixes

    target = tmp_path / "a.py"
    target.write_text(FIXABLE)
    real = fixes._rewrite

    def edited_meanwhile(path, old, new):
        Path(path).write_text(FIXABLE + "x = 1\n")
        return real(path, old, new)

    monkeypatch.setattr(fixes, "_rewrite", edited_meanwhile)
    fix(target)
    assert target.read_text() == FIXABLE + "x = 1\n"
