"""`graphlint check` never blocks on a file it reads (issue 23): a FIFO with no writer, or a
symlink to ``/proc/kmsg`` (a "regular" file whose read never ends), in the place of each kind
of file it reads — a checked file, a module it follows, a ``.gitignore``, ``.git/info/exclude``,
a ``pyproject.toml``, a ``__pycache__`` file, a cache file. Each run is a subprocess with a
generous hang guard: a hang fails the test instead of stopping the suite."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.util import cache_from_source
from pathlib import Path

import pytest

GRAPHLINT = os.path.join(os.path.dirname(sys.executable), "graphlint")
FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"
HANG_GUARD = 120  # seconds: a run takes about one
#: A loop over a builder of the module beside (the analysis reads that module), GL301 at 4:9
#: whatever that module holds, and GL503 at 5:5 while it builds a Keras model.
MAIN = "import tensorflow as tf\nimport helpers\nfor i in range(3):\n    s = tf.compat.v1.Session()\n    helpers.build()\n"
HELPERS = "import tensorflow as tf\n\ndef build():\n    return tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"


def gl(*args, cwd):
    return subprocess.run([GRAPHLINT, *args], cwd=cwd, capture_output=True, text=True, timeout=HANG_GUARD)


def kmsg_readable() -> bool:
    return os.path.exists("/proc/kmsg") and os.access("/proc/kmsg", os.R_OK)


def special(path: Path, kind: str) -> None:
    """Put a FIFO (no writer) or a symlink to /proc/kmsg at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        if not kmsg_readable():
            pytest.skip("/proc/kmsg is not readable here")
        os.symlink("/proc/kmsg", path)


KINDS = ["fifo", "kmsg"]


def git_tree(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text(FIXABLE)
    return tmp_path


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", [".gitignore", ".git/info/exclude", "sub/.gitignore"])
def test_a_special_ignore_file_is_not_read(tmp_path, kind, name):
    tree = git_tree(tmp_path)
    (tree / "sub").mkdir()
    (tree / "sub" / "b.py").write_text(FIXABLE)
    special(tree / name, kind)
    proc = gl("check", "--no-cache", ".", cwd=tree)
    assert proc.returncode == 1, proc.stderr
    assert "a.py:2:6: GL103" in proc.stdout and "b.py:2:6: GL103" in proc.stdout


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_pyproject_is_not_read(tmp_path, kind):
    (tmp_path / "a.py").write_text(FIXABLE)
    special(tmp_path / "pyproject.toml", kind)
    proc = gl("check", "--no-cache", "a.py", cwd=tmp_path)
    assert "Traceback" not in proc.stderr
    assert proc.returncode in (1, 2), proc.stderr


def test_a_kmsg_link_named_py_in_a_walk_is_not_read(tmp_path):
    (tmp_path / "a.py").write_text(FIXABLE)
    special(tmp_path / "notes.py", "kmsg")
    proc = gl("check", "--no-cache", ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "a.py:2:6: GL103" in proc.stdout


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_module_the_checked_file_imports_is_not_read(tmp_path, kind):
    (tmp_path / "main.py").write_text(MAIN)
    special(tmp_path / "helpers.py", kind)
    proc = gl("check", "--no-cache", "main.py", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "main.py:4:9: GL301" in proc.stdout


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_bytecode_file_is_not_read(tmp_path, kind):
    """Bytecode is consulted for installed packages (graphlint.static.engine._compiled)."""
    installed = tmp_path / "lib" / "site-packages"
    installed.mkdir(parents=True)
    (installed / "b.py").write_text("x = 1\n")
    special(Path(cache_from_source(str(installed / "b.py"))), kind)
    proc = gl("check", "--no-cache", str(installed / "b.py"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("which", ["checked", "dependency", "cache"])
def test_a_file_that_became_special_after_it_was_cached_is_not_read(tmp_path, kind, which):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "helpers.py").write_text(HELPERS)
    first = gl("check", "main.py", "helpers.py", cwd=tmp_path)
    assert first.returncode == 1 and "main.py:5:5: GL503" in first.stdout, first.stderr
    (cached,) = (tmp_path / ".graphlint_cache").rglob("*.json")
    target = {"checked": tmp_path / "helpers.py", "dependency": tmp_path / "helpers.py", "cache": cached}[which]
    special(target, kind)
    args = ["main.py", "helpers.py"] if which == "checked" else ["main.py"]
    proc = gl("check", *args, cwd=tmp_path)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1 and "main.py:4:9: GL301" in proc.stdout, proc.stderr
