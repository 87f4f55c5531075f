"""`graphlint check --fix` and `--diff` on files of every shape a user has: line endings of
each kind, a byte-order mark, a coding cookie, tabs, form feeds, no final newline, a line
continuation, two fixes on one line. `--fix` changes the fixed text only; `--diff` is the
unified diff of exactly that change, which `patch` applies (line breaks are `\\n`, as diff and
git count them; a `\\r` or a form feed is a character of its line)."""

from __future__ import annotations

import os
import re

import pytest

from click.testing import CliRunner

from graphlint.cli import main

#: (name, bytes): each holds one `with tf.Graph():` to fix
SHAPES = [
    ("crlf", b"import tensorflow as tf\r\nwith tf.Graph():\r\n    pass\r\n"),
    ("crlf-no-final-newline", b"import tensorflow as tf\r\nwith tf.Graph():\r\n    pass"),
    ("lone-cr", b"import tensorflow as tf\rwith tf.Graph():\r    pass\r"),
    ("mixed", b"import tensorflow as tf\nwith tf.Graph():\r\n    pass\rx = 1\n"),
    ("form-feed-line", b"import tensorflow as tf\n\x0c\nwith tf.Graph():\n\tpass\n"),
    ("form-feed-in-line", b"import tensorflow as tf\nx = 1  # \x0c page\nwith tf.Graph():\n    pass\n"),
    ("bom", b"\xef\xbb\xbfimport tensorflow as tf\nwith tf.Graph():\n    pass\n"),
    ("latin-1", b"# -*- coding: latin-1 -*-\nimport tensorflow as tf\nwith tf.Graph():  # caf\xe9\n    pass\n"),
    ("no-final-newline", b"import tensorflow as tf\nwith tf.Graph():\n    pass"),
    ("continuation", b"import tensorflow as tf\nwith \\\n  tf.Graph(\\\n) \\\n  :\n    pass\n"),
    ("two-on-a-line", b"import tensorflow as tf\nwith tf.Graph() as a, tf.Graph() as b:\n    pass\n"),
    ("unicode-separator", "import tensorflow as tf\ns = '\u2028\x85'\nwith tf.Graph():\n    pass\n".encode()),
]


def check(*args, encoding: str = "utf-8") -> tuple[int, str, str]:
    """`graphlint check ARGS` in-process: (exit code, stdout as written, read in ``encoding``
    (a diff is in its file's bytes), stderr); click's `Result.stdout` would turn each
    `\\r\\n` into `\\n`."""
    result = CliRunner().invoke(main, ["check", *map(str, args)], catch_exceptions=False)
    return result.exit_code, result.stdout_bytes.decode(encoding), result.stderr


def fixed_bytes(data: bytes) -> bytes:
    """What the fix is: `.as_default()` after each `tf.Graph()` (its parentheses may hold a
    line continuation)."""
    return re.sub(rb"tf\.Graph\((?:\\\n)?\)", lambda m: m.group(0) + b".as_default()", data)


def sides(diff: str) -> tuple[str, str]:
    """The old and new text of a diff of one file in one hunk, read as `patch` reads it:
    rows end at `\\n`; `\\ No newline at end of file` takes the previous row's break off,
    and only the last row of a side can have it."""
    rows = diff.split("\n")
    assert rows[0].startswith("--- ") and rows[1].startswith("+++ ") and re.fullmatch(r"@@ -1(,\d+)? \+1(,\d+)? @@", rows[2]), diff
    assert rows[-1] == "" and all(not r.startswith("@@") for r in rows[3:]), diff
    old: list[str] = []
    new: list[str] = []
    previous: list[list[str]] = []
    ended: list[list[str]] = []
    for row in rows[3:-1]:
        if row == "\\ No newline at end of file":
            assert previous, diff
            for side in previous:
                side[-1] = side[-1][:-1]
            ended += previous
            continue
        tag, body = row[:1], row[1:] + "\n"
        assert tag in (" ", "-", "+"), (row, diff)
        previous = [side for side, tags in ((old, " -"), (new, " +")) if tag in tags]
        assert not any(side is done for side in previous for done in ended), f"a row after the end of its side:\n{diff}"
        for side in previous:
            side.append(body)
    return "".join(old), "".join(new)


def encoding_of(data: bytes) -> str:
    """The codec of the file's text, as a diff shows it (a byte-order mark included: it is in
    the file)."""
    return "latin-1" if b"coding: latin-1" in data else "utf-8"


def expected_text(data: bytes) -> str:
    return data.decode(encoding_of(data))


@pytest.mark.parametrize("name,data", SHAPES, ids=[n for n, _ in SHAPES])
def test_fix_changes_only_the_fixed_text(tmp_path, name, data):
    path = tmp_path / "shape.py"
    path.write_bytes(data)
    code, out, err = check("--no-cache", "--fix", path)
    assert code == 0, out + err
    assert path.read_bytes() == fixed_bytes(data)


@pytest.mark.parametrize("name,data", SHAPES, ids=[n for n, _ in SHAPES])
def test_diff_is_the_fix_as_patch_reads_it(tmp_path, name, data):
    path = tmp_path / "shape.py"
    path.write_bytes(data)
    code, out, err = check("--no-cache", "--diff", path, encoding=encoding_of(data))
    assert code == 1 and path.read_bytes() == data, err
    old, new = sides(out)
    assert old == expected_text(data)
    assert new == expected_text(fixed_bytes(data))


#: (name, bytes): files whose text is not their bytes read as UTF-8, or whose lines do not end
#: in `\\n` alone; each holds one `with tf.Graph():` to fix
ENCODED = [
    ("latin-1", b"# -*- coding: latin-1 -*-\nimport tensorflow as tf\nwith tf.Graph():  # caf\xe9\n    pass\n"),
    ("cp1252", b"# coding: cp1252\nimport tensorflow as tf\n# \x93quoted\x94 \x80\nwith tf.Graph():\n    s = '\x85'\n"),
    ("latin-1-crlf", b"# coding: latin-1\r\nimport tensorflow as tf\r\nwith tf.Graph():  # \xe9\r\n    pass"),
    ("crlf", b"import tensorflow as tf\r\nwith tf.Graph():\r\n    pass\r\n"),
    ("bom", b"\xef\xbb\xbfimport tensorflow as tf\nwith tf.Graph():\n    pass\n"),
    ("bom-crlf", "\ufeffimport tensorflow as tf\r\nwith tf.Graph():  # café\r\n    pass".encode()),
    ("utf-8", "import tensorflow as tf\n# 日本語 café \u2028\nwith tf.Graph():  # ü\n    pass\n".encode()),
    ("notebook", (
        '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "source": '
        '["import tensorflow as tf\\n", "# café 日本\\n", "with tf.Graph():\\n", "    pass"]}], '
        '"metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}\n').encode()),
]


@pytest.mark.parametrize("name,data", ENCODED, ids=[n for n, _ in ENCODED])
def test_diff_applied_with_patch_gives_what_fix_writes(tmp_path, name, data):
    """`--diff` is in the file's own bytes (its codec, its line ends, its byte-order mark):
    `patch` applied to the file gives, byte for byte, what `--fix` writes."""
    import shutil
    import subprocess

    from harness import HANG_GUARD

    if shutil.which("patch") is None:
        pytest.skip("no patch program")
    suffix = ".ipynb" if name == "notebook" else ".py"
    fixed, patched = tmp_path / "fixed", tmp_path / "patched"
    for folder in (fixed, patched):
        folder.mkdir()
        (folder / f"shape{suffix}").write_bytes(data)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--diff", str(patched / f"shape{suffix}")])
    assert result.exit_code == 1, result.output
    diff = result.stdout_bytes
    check("--no-cache", "--fix", fixed / f"shape{suffix}")
    assert (fixed / f"shape{suffix}").read_bytes() != data  # (fixed)
    proc = subprocess.run(["patch", "--batch", "--binary", "--fuzz=0", "-s", str(patched / f"shape{suffix}")], input=diff,
                          capture_output=True, timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stdout + proc.stderr + diff
    assert (patched / f"shape{suffix}").read_bytes() == (fixed / f"shape{suffix}").read_bytes()


def test_diff_is_in_the_files_bytes_whatever_stdouts_encoding(tmp_path):
    """A diff is bytes, as diff and git write it: stdout's encoding (PYTHONIOENCODING, a
    locale) does not re-encode a UTF-8 file's lines (they were "caf\\xe9" or "caf\\\\xe9")."""
    import subprocess

    from harness import GRAPHLINT, HANG_GUARD

    data = "import tensorflow as tf\n# café\nwith tf.Graph():\n    pass\n".encode()
    (tmp_path / "a.py").write_bytes(data)
    for encoding in ("ascii", "latin-1"):
        proc = subprocess.run([GRAPHLINT, "check", "--no-cache", "--diff", "a.py"], cwd=tmp_path, capture_output=True,
                              timeout=HANG_GUARD, env={**os.environ, "PYTHONIOENCODING": encoding})
        assert proc.returncode == 1, proc.stderr
        assert b"\n # caf\xc3\xa9\n-with tf.Graph():\n+with tf.Graph().as_default():\n" in proc.stdout, proc.stdout


#: codecs a coding cookie may name (Python reads the file with them) whose text does not encode
#: back to the bytes it was read from: `unicode_escape` writes each line break as `\n`, `utf-7`
#: re-encodes the backslashes, `raw_unicode_escape` writes `\u00e9` as a byte, `idna` cannot
#: encode the text at all
UNFAITHFUL = ["unicode_escape", "raw_unicode_escape", "utf-7", "idna"]


@pytest.mark.parametrize("codec", UNFAITHFUL)
def test_fix_leaves_a_file_whose_codec_would_change_other_bytes_whole(tmp_path, codec):
    data = f"# coding: {codec}\nimport tensorflow as tf\ns = 'a\\tb \\u00e9 +AGE- \\x41'\nwith tf.Graph():\n    pass\n".encode()
    odd, plain = tmp_path / "odd.py", tmp_path / "plain.py"
    odd.write_bytes(data)
    plain.write_bytes(SHAPES[0][1])
    code, out, err = check("--no-cache", "--fix", odd, plain)
    assert odd.read_bytes() == data
    assert plain.read_bytes() == fixed_bytes(SHAPES[0][1])  # the others are fixed
    (line,) = [line for line in err.splitlines() if "odd.py" in line]
    assert line.startswith("graphlint: cannot fix ") and codec in line and "left unchanged" in line, err
    assert "odd.py:4:6: GL103" in out and code == 1, out + err  # its finding is still reported
    assert check("--no-cache", "--diff", odd)[1] == ""  # nor is it shown as a diff


BREAKING_PLUGIN = '''
from graphlint import Rule
from graphlint.findings import Location


class Breaks(Rule):
    """Offers a fix that would not parse."""

    code = "XZ300"
    name = "breaking-fix"
    summary = "offers a broken fix"
    engines = ("static",)

    def check_module(self, module):
        line = module.text.splitlines().index("with tf.Graph():") + 1
        start = module.offset(line, 0)
        self.report("a fix that breaks the file", Location(module.path, line, 1))
        module.add_edit("XZ300", line, start, start + len("with "), "")  # `tf.Graph():` alone
'''


def test_a_fix_whose_result_would_not_parse_is_not_written(tmp_path, monkeypatch):
    """A rule plugin offers edits too (`module.add_edit`): one whose result is not Python is
    never written, nor offered as a diff; the file's other fixes are left with it."""
    from harness import install_plugin

    site = install_plugin(tmp_path / "site", "xz_breaking_rules", BREAKING_PLUGIN, {"XZ300": "Breaks"})
    monkeypatch.syspath_prepend(str(site))
    project = tmp_path / "project"
    project.mkdir()
    data = SHAPES[0][1]
    (project / "a.py").write_bytes(data)
    monkeypatch.chdir(project)
    assert check("--no-cache", "--diff", "--extend-select", "XZ300", "a.py")[1] == ""
    code, out, err = check("--no-cache", "--fix", "--extend-select", "XZ300", "a.py")
    assert (project / "a.py").read_bytes() == data
    (line,) = [line for line in err.splitlines() if "a.py" in line]
    assert line.startswith("graphlint: cannot fix ") and "would not parse" in line, err
    assert "a.py:2:1: XZ300" in out and "a.py:2:6: GL103" in out and code == 1, out + err


def test_a_file_named_twice_through_a_hard_link_is_fixed_once_and_reported_fixed(tmp_path):
    """Its second name holds the fixed text by the time it is fixed: its findings were fixed,
    not left (a false finding after --fix fails a pre-commit hook)."""

    data = SHAPES[0][1]
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_bytes(data)
    os.link(first, second)
    code, out, err = check("--no-cache", "--fix", first, second)
    assert first.read_bytes() == second.read_bytes() == fixed_bytes(data)
    assert (code, out) == (0, "graphlint: no findings.\n"), out + err
