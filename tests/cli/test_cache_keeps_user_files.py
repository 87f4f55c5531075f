"""The cache of `graphlint check` never changes, hides or deletes a file of the user's (issue
23): its `.gitignore` goes only into a folder graphlint created."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from click.testing import CliRunner

from graphlint.cli import main
from graphlint.static import cache

FIXABLE_NOT = "import tensorflow as tf\nfor i in range(3):\n    with tf.compat.v1.Session() as s:\n        pass\n"  # GL301, no fix


def check(*args, cwd: Path, env: dict | None = None):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner(env=env).invoke(main, ["check", "--no-plugins", *map(str, args)], catch_exceptions=False)
    finally:
        os.chdir(old)
    return result


def test_a_cache_dir_of_the_users_own_folder_gets_no_gitignore(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text(FIXABLE_NOT)
    env = {cache.DIRECTORY_ENV: "."}
    for _ in range(2):  # the second run would walk past a `*` .gitignore: "no findings"
        result = check(".", cwd=tmp_path, env=env)
        assert result.exit_code == 1 and "a.py:3:10: GL301" in result.stdout, result.output
    assert not (tmp_path / ".gitignore").exists()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "a.py" in status.stdout


def test_an_existing_cache_dir_keeps_its_own_gitignore(tmp_path):
    (tmp_path / "a.py").write_text(FIXABLE_NOT)
    (tmp_path / "ci-cache").mkdir()
    (tmp_path / "ci-cache" / ".gitignore").write_text("keep-me\n")
    check("a.py", cwd=tmp_path, env={cache.DIRECTORY_ENV: str(tmp_path / "ci-cache")})
    assert (tmp_path / "ci-cache" / ".gitignore").read_text() == "keep-me\n"


def test_a_cache_folder_graphlint_creates_gets_its_gitignore(tmp_path):
    (tmp_path / "a.py").write_text(FIXABLE_NOT)
    check("a.py", cwd=tmp_path, env={cache.DIRECTORY_ENV: str(tmp_path / "new-cache")})
    assert (tmp_path / "new-cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert not (tmp_path / ".gitignore").exists()
