"""`--fix` on a notebook changes the fixed text and nothing else (issue 23): a cell is text read
from UTF-8 JSON, so a coding comment in it decodes nothing (it once shifted every offset: a
latin-1 comment and one `é` turned `with tf.Graph():` into `    p.as_default()ass`), and the
strings of a cell's source list no edit touches stay as they were, byte for byte (a `\\f` or a
`\\u2028` inside one is no line break to split it at)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphlint.cli import main

TAIL = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"


def write_notebook(path: Path, source, **dump) -> Path:
    doc = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# title"]},
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source},
        ],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(doc, indent=1, **dump), encoding="utf-8")
    return path


def fix(path: Path):
    result = CliRunner().invoke(main, ["check", "--fix", "--no-cache", "--no-plugins", str(path)], catch_exceptions=False)
    return result.exit_code, result.stderr


@pytest.mark.parametrize("comment", ["# -*- coding: latin-1 -*-", "# coding: ascii", "# vim: set fileencoding=cp1252 :", "# coding: no-such-codec"])
@pytest.mark.parametrize("as_list", [False, True], ids=["string", "list"])
def test_a_coding_comment_in_a_cell_changes_nothing_the_fix_writes(tmp_path, comment, as_list):
    text = f"{comment}\n# café, naïve, 東京\n" + TAIL
    source = text.splitlines(keepends=True) if as_list else text
    path = write_notebook(tmp_path / "nb.ipynb", source, ensure_ascii=False)
    before = path.read_bytes()
    code, err = fix(path)
    assert code == 0, err
    expected = before.replace(b"with tf.Graph():", b"with tf.Graph().as_default():")
    assert path.read_bytes() == expected


@pytest.mark.parametrize("odd", ["\f", "\u2028", "\u2029", "\x1c", "\x1d", "\x1e", "\x85", "\v"])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_strings_no_edit_touches_stay_byte_for_byte(tmp_path, odd, ensure_ascii):
    lines = ["import tensorflow as tf\n", f"x = 1  # a{odd}b\n", f"y = 'p{odd}q'\n", "with tf.Graph():\n", "    pass\n"]
    path = write_notebook(tmp_path / "nb.ipynb", lines, ensure_ascii=ensure_ascii)
    before = path.read_bytes()
    code, err = fix(path)
    assert code == 0, err
    after = path.read_bytes()
    assert after == before.replace(b'"with tf.Graph():\\n"', b'"with tf.Graph().as_default():\\n"')


def test_an_edit_in_a_string_holding_an_odd_break_keeps_the_list_as_it_was(tmp_path):
    lines = ["import tensorflow as tf\n", "with tf.Graph():  # a\fb\u2028c\n", "    pass\n"]
    path = write_notebook(tmp_path / "nb.ipynb", lines)
    code, err = fix(path)
    assert code == 0, err
    source = json.loads(path.read_text())["cells"][1]["source"]
    assert source == ["import tensorflow as tf\n", "with tf.Graph().as_default():  # a\fb\u2028c\n", "    pass\n"]
