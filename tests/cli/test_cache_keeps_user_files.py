"""The cache of `graphlint check` never changes, hides or deletes a file of the user's (issue
23): its `.gitignore` goes only into a folder graphlint created, a link inside the cache is
never followed, and only graphlint's own (marked) files are ever rewritten or pruned."""

from __future__ import annotations

import json
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


def user_files(folder: Path, n: int) -> dict[str, bytes]:
    """``n`` JSON files of the user's, some named like the cache's own."""
    folder.mkdir(parents=True, exist_ok=True)
    made = {}
    for i in range(n):
        name = f"{i:024x}.json" if i % 2 else f"data{i}.json"
        data = json.dumps({"format": cache.FORMAT, "entries": {}, "mine": i}).encode()
        (folder / name).write_bytes(data)
        made[name] = data
    return made


def unchanged(folder: Path, made: dict[str, bytes]) -> bool:
    return {p.name: p.read_bytes() for p in folder.iterdir()} == made


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


def test_a_link_inside_the_cache_is_never_followed(tmp_path):
    """The issue's case: a cloned repository holds `.graphlint_cache/<format>` -> a folder of
    the user's JSON files; one check pruned 13 of 20."""
    (tmp_path / "a.py").write_text(FIXABLE_NOT)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    made = user_files(tmp_path / "mine", 20)
    (tmp_path / cache.DIRECTORY).mkdir()
    os.symlink(tmp_path / "mine", tmp_path / cache.DIRECTORY / str(cache.FORMAT))
    for _ in range(2):
        result = check("a.py", cwd=tmp_path)
        assert result.exit_code == 1 and "GL301" in result.stdout
    assert unchanged(tmp_path / "mine", made)


def test_a_linked_context_file_is_never_followed(tmp_path):
    (tmp_path / "a.py").write_text(FIXABLE_NOT)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    check("a.py", cwd=tmp_path)
    (own,) = (tmp_path / cache.DIRECTORY / str(cache.FORMAT)).glob("*.json")
    target = tmp_path / "mine.json"
    target.write_text('{"mine": true}')
    own.unlink()
    own.symlink_to(target)
    assert check("a.py", cwd=tmp_path).exit_code == 1
    assert own.is_symlink() and target.read_text() == '{"mine": true}'


def test_only_graphlints_own_files_are_pruned(tmp_path):
    """Contexts beyond the KEEP most recent are pruned: graphlint's own files, marked, and
    none of the user's in the same folder, whatever they are named."""
    (tmp_path / "a.py").write_text(FIXABLE_NOT)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    folder = tmp_path / cache.DIRECTORY / str(cache.FORMAT)
    made = user_files(folder, 20)
    selections = ["GL101", "GL102", "GL103", "GL202", "GL301", "GL502", "GL503", "GL504", "GL101,GL102", "GL301,GL103"]
    for select in selections:
        check("--select", select, "a.py", cwd=tmp_path)
    own = sorted(p.name for p in folder.iterdir() if p.name not in made)
    assert len(own) == cache.KEEP
    assert all(p.read_bytes().startswith(cache.MARK) for p in folder.iterdir() if p.name in own)
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.name in made} == made


def test_a_file_of_the_users_at_a_context_files_name_is_never_rewritten(tmp_path):
    (tmp_path / "a.py").write_text(FIXABLE_NOT)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    check("a.py", cwd=tmp_path)
    (own,) = (tmp_path / cache.DIRECTORY / str(cache.FORMAT)).glob("*.json")
    own.write_text('{"mine": true}')
    (tmp_path / "b.py").write_text(FIXABLE_NOT)
    assert check("a.py", "b.py", cwd=tmp_path).exit_code == 1
    assert own.read_text() == '{"mine": true}'


def test_a_context_never_grows_past_the_size_it_is_read_up_to(tmp_path, monkeypatch):
    """A context file is read up to MAX_CACHE_BYTES: one larger was never read again, never
    rewritten and never pruned (the cache of that context was dead, and its file stayed for
    good). A save keeps what fits, the results of the run's own files first; a larger context
    file of graphlint's (an older one's) is rewritten within the limit; a user's file at a
    context file's name is left alone whatever its size. (The limit is lowered to stand for
    256 MiB of results.)"""
    limit = 8000
    monkeypatch.setattr(cache, "MAX_CACHE_BYTES", limit)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    for i in range(40):  # ~40 entries of ~600 bytes: three times the limit
        (tmp_path / f"m{i:02}.py").write_text(FIXABLE_NOT)
    first = check("--format", "json", ".", cwd=tmp_path)
    assert first.exit_code == 1
    folder = tmp_path / cache.DIRECTORY / str(cache.FORMAT)
    (context,) = folder.glob("*.json")
    assert 0 < context.stat().st_size <= limit
    kept = json.loads(context.read_bytes())["entries"]
    assert 0 < len(kept) < 40
    assert check("--format", "json", ".", cwd=tmp_path).stdout == first.stdout
    assert json.loads(context.read_bytes())["entries"] == kept  # the same files, run after run

    # a context file of graphlint's larger than the limit: read as empty, rewritten within it
    big = cache.MARK + b'"entries":{' + b",".join(b'"x%d.py":{}' % i for i in range(2000)) + b"}}"
    assert len(big) > limit
    context.write_bytes(big)
    assert check("--format", "json", ".", cwd=tmp_path).stdout == first.stdout
    assert 0 < context.stat().st_size <= limit and json.loads(context.read_bytes())["entries"] == kept

    # a user's file at that name, as large: neither read nor rewritten nor pruned
    theirs = b'{"mine": "' + b"x" * (2 * limit) + b'"}'
    context.write_bytes(theirs)
    assert check("--format", "json", ".", cwd=tmp_path).stdout == first.stdout
    assert context.read_bytes() == theirs
