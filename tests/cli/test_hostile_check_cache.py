"""The cache never fails a run and never changes what a run reports: an entry that is JSON of
the right shape but holds values of the wrong type (a cache folder committed to a repository,
a file edited by hand, another program's bytes after the mark) is no entry, and the file is
checked afresh."""

from __future__ import annotations

import json

import pytest

from harness import check

SESSION_IN_LOOP = "import tensorflow as tf\n\nfor i in range(10):\n    sess = tf.compat.v1.Session()\n"


def corrupt_count(finding):
    finding["count"] = "many"


def corrupt_line(finding):
    finding["location"][1] = "seven"


def corrupt_column(finding):
    finding["location"][2] = 2.5


def corrupt_cell(finding):
    finding["location"][4] = "one"


def corrupt_message(finding):
    finding["message"] = {"text": "x"}


def corrupt_code(finding):
    finding["code"] = 301


def corrupt_related(finding):
    finding["related"] = [[["a.py", [1], 1, "", None], "here"]]


def corrupt_path(finding):
    finding["location"][0] = ["a.py"]


CORRUPTIONS = [corrupt_count, corrupt_line, corrupt_column, corrupt_cell, corrupt_message, corrupt_code, corrupt_related, corrupt_path]


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=[c.__name__ for c in CORRUPTIONS])
def test_an_entry_of_the_wrong_types_is_no_entry(tmp_path, monkeypatch, corrupt):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(SESSION_IN_LOOP)
    fresh = check("--format", "json", ".")
    assert fresh[0] == 1
    (context,) = (tmp_path / ".graphlint_cache" / "2").glob("*.json")
    doc = json.loads(context.read_text())
    for entry in doc["entries"].values():
        corrupt(entry["findings"][0])
    context.write_text(json.dumps(doc, separators=(",", ":")))
    assert check("--format", "json", ".") == fresh


def test_clean_leaves_the_users_empty_folders(tmp_path):
    """`graphlint clean` with the cache in a folder of the user's (`GRAPHLINT_CACHE_DIR`,
    `--cache-dir`) removes graphlint's files, never the user's empty folders: not one named
    like the cache's format (`2024`, `7`), nor the folder itself."""
    from click.testing import CliRunner

    from graphlint.cli import main

    folder = tmp_path / "mine"
    for name in ("2024", "7", "photos"):
        (folder / name).mkdir(parents=True)
    (tmp_path / "empty").mkdir()
    for where in (folder, tmp_path / "empty"):
        result = CliRunner(env={"GRAPHLINT_CACHE_DIR": str(where)}).invoke(main, ["clean"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in folder.iterdir()) == ["2024", "7", "photos"]
    assert (tmp_path / "empty").is_dir()


def test_clean_removes_the_cache_folder_graphlint_made(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from graphlint.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a.py").write_text(SESSION_IN_LOOP)
    check("--cache-dir", "made", ".")
    assert (tmp_path / "made" / ".gitignore").exists()
    result = CliRunner().invoke(main, ["clean", "--cache-dir", "made"], catch_exceptions=False)
    assert result.exit_code == 0 and "removed 2 cache files" in result.output, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "pyproject.toml"]


#: A writer killed while it saves the cache: `os.replace` (the rename over the context file) is
#: where this one receives SIGKILL, with its temporary file written whole beside the target.
KILLED_WRITER = """
import os, signal, sys
os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)
from graphlint.cli import main
main(["check", "--output-format", "json", "."])
"""


def test_temporary_files_of_killed_writers_are_removed_and_nothing_else(tmp_path):
    """A writer killed during a save (kill -9, a power cut) leaves its temporary file beside the
    context file. One older than an hour is removed when the cache is next saved, every one by
    `graphlint clean`; a fresh one may be a writer at work and stays until then, and a file of
    the user's (another content, a link) is never removed."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from click.testing import CliRunner

    from graphlint.cli import main
    from harness import HANG_GUARD

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a.py").write_text(SESSION_IN_LOOP)
    check(".", cwd=tmp_path)
    folder = tmp_path / ".graphlint_cache" / "2"
    (context,) = folder.glob("*.json")
    (tmp_path / "a.py").write_text(SESSION_IN_LOOP + "x = 1\n")  # changed: the next run saves
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITER], cwd=tmp_path, capture_output=True, timeout=HANG_GUARD)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    (killed,) = folder.glob(f".{context.name}.*.tmp")
    content = context.read_bytes()
    stem = f".{context.name}."
    partial, empty, fresh = folder / f"{stem}abc_0123.tmp", folder / f"{stem}zz9zz9zz.tmp", folder / f"{stem}fresh000.tmp"
    partial.write_bytes(content[:20])
    empty.write_bytes(b"")
    fresh.write_bytes(content[:20])
    notes, outside = folder / f"{stem}mynotes1.tmp", tmp_path / "precious.txt"
    notes.write_bytes(b"my notes, named like a temporary file\n")
    outside.write_bytes(content[:20])
    link = folder / f"{stem}linked00.tmp"
    os.symlink(outside, link)
    hours_ago = time.time() - 2 * 3600
    for path in (killed, partial, empty, notes):
        os.utime(path, (hours_ago, hours_ago))
    os.utime(link, (hours_ago, hours_ago), follow_symlinks=False)
    (tmp_path / "a.py").write_text(SESSION_IN_LOOP + "x = 2\n")
    check(".", cwd=tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == sorted([context.name, fresh.name, notes.name, link.name])
    result = CliRunner().invoke(main, ["clean", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in folder.iterdir()) == sorted([notes.name, link.name])
    assert outside.read_bytes() == content[:20]


def test_a_run_over_more_configurations_than_the_cache_keeps_is_cached_whole(tmp_path, monkeypatch):
    """Ten sub-projects, each with its own configuration (a context each), one cache folder
    (GRAPHLINT_CACHE_DIR, --cache-dir): the run's own contexts are never pruned by it, so the
    second run takes every file from the cache and writes nothing. They were: the cache kept
    8 contexts (KEEP), each save pruned the oldest, and every run analysed every file again."""
    from graphlint.static.cache import KEEP

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRAPHLINT_CACHE_DIR", str(tmp_path / "cache"))
    projects = KEEP + 2
    for i in range(projects):
        (tmp_path / f"p{i}").mkdir()
        (tmp_path / f"p{i}" / "pyproject.toml").write_text(f'[tool.graphlint.per-file-ignores]\n"other{i}.py" = ["GL103"]\n')
        (tmp_path / f"p{i}" / "a.py").write_text(SESSION_IN_LOOP)
    first = check("--format", "json", ".")
    contexts = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (tmp_path / "cache" / "2").glob("*.json")}
    assert len(contexts) == projects
    assert check("--format", "json", ".") == first
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (tmp_path / "cache" / "2").glob("*.json")} == contexts
