"""Valid code as deep as Python itself parses is analysed, never a GL000 (issue 23):
`f(0.1 / (epoch + 1+1+...+1))` in a loop with 500 terms was "GL000 rule GL501 failed ...
RecursionError" and the GL501 was lost (300 worked; Python compiles ~2,900). What Python
cannot compile stays one GL001."""

from __future__ import annotations

import sys

import pytest

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file, check_files


def program(terms: int) -> str:
    return (
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n\n"
        "for epoch in range(8):\n    f(0.1 / (epoch + " + "+".join(["1"] * terms) + "))\n"
    )


def static_rules() -> list[type]:
    return [c for c in discover_rules(plugins=False).values() if c.checks_statically()]


def codes(results) -> list[tuple[str, int]]:
    return [(f.code, f.location.line) for r in results for f in r.findings]


def compiles(source: str) -> bool:
    try:
        compile(source, "x", "exec")
    except RecursionError:
        return False
    return True


@pytest.mark.parametrize("terms", [300, 500, 2500])
def test_a_deep_expression_in_a_loop_is_analysed(tmp_path, terms):
    path = tmp_path / "deep.py"
    path.write_text(program(terms))
    assert compiles(program(terms))
    assert codes([check_file(str(path), static_rules(), Config())]) == [("GL501", 8)]


def test_many_deep_files_in_one_run_and_in_a_pool(tmp_path):
    """In turn in this process and over worker processes, as `graphlint check` runs them."""
    paths = []
    for i in range(70):  # enough for a pool (engine.PARALLEL_MIN_FILES)
        path = tmp_path / f"deep{i}.py"
        path.write_text(program(2500) if i % 10 == 0 else "x = 1\n")
        paths.append(str(path))
    expected = [("GL501", 8)] * 7
    assert codes(check_files(paths, static_rules(), Config(), jobs=1)) == expected
    assert codes(check_files(paths, static_rules(), Config(), jobs=2)) == expected


def test_deeper_than_python_compiles_is_still_one_gl001(tmp_path):
    source = program(4000)
    assert not compiles(source)
    path = tmp_path / "deeper.py"
    path.write_text(source)
    assert [code for code, _ in codes([check_file(str(path), static_rules(), Config())])] == ["GL001"]


def test_the_recursion_limit_is_the_callers_again_after_a_check(tmp_path):
    path = tmp_path / "deep.py"
    path.write_text(program(2500))
    before = sys.getrecursionlimit()
    check_file(str(path), static_rules(), Config())
    assert sys.getrecursionlimit() == before


DEEP = "-" * 5000 + "1"  # a chain of unary minus: RecursionError, no place named
#: (name, source, (line, column) of the statement too deep to parse)
TOO_DEEP = [
    ("unary-at-the-top", "import os\n\nx = 1\ny = " + "-" * 200_000 + "1\nz = 2\n", (4, 1)),
    ("in-a-block", "import os\n\nfor i in range(3):\n    x = 1\n    y = " + DEEP + "\n    z = 2\n", (5, 5)),
    ("a-long-sum", program(4000), (8, 5)),
    ("a-default-of-a-def", "x = 1\n\n\nclass A:\n    def f(self, y=" + DEEP + "):\n        pass\n", (5, 5)),
    ("an-elif", "x = 1\nif x:\n    pass\nelif " + DEEP + ":\n    pass\n", (4, 1)),
    ("over-lines", "x = 1\ny = [\n    1,\n    " + DEEP + ",\n]\n", (2, 1)),
    ("crlf", "x = 1\r\nif x:\r\n    y = " + DEEP + "\r\n", (3, 5)),
    ("a-one-line-if", "x = 1\nif x: y = " + DEEP + "\n", (2, 1)),
    ("in-a-string's-braces", "x = 1\ny = 2\nz = f'{" + DEEP + "}'\n", (3, 1)),
]


@pytest.mark.parametrize("name,source,where", TOO_DEEP, ids=[t[0] for t in TOO_DEEP])
def test_a_file_too_deep_to_parse_is_gl001_at_the_statement_where_the_depth_is(tmp_path, name, source, where):
    path = tmp_path / "deep.py"
    path.write_bytes(source.encode())
    (finding,) = check_file(str(path), static_rules(), Config()).findings
    assert (finding.code, finding.message) == ("GL001", "too deeply nested to parse")
    assert (finding.location.line, finding.location.column) == where


def test_a_latin_1_file_too_deep_to_parse_is_located_in_its_own_text(tmp_path):
    path = tmp_path / "deep.py"
    path.write_bytes(b"# coding: latin-1\ns = 'caf\xe9'\nif s:\n    y = " + DEEP.encode() + b"\n")
    (finding,) = check_file(str(path), static_rules(), Config()).findings
    assert (finding.code, finding.location.line, finding.location.column) == ("GL001", 4, 5)


def notebook(*cells: str) -> str:
    import json

    return json.dumps({
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# notes"]}]
        + [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": cell} for cell in cells],
        "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5,
    })


def test_a_notebook_cell_too_deep_to_parse_is_gl001_at_its_cell_and_line(tmp_path):
    path = tmp_path / "deep.ipynb"
    path.write_text(notebook("import tensorflow as tf\n", "x = 1\nif x:\n    y = " + DEEP + "\n", "z = 2\n"))
    (finding,) = check_file(str(path), static_rules(), Config()).findings
    assert finding.code == "GL001" and finding.message == "too deeply nested to parse"
    assert (finding.location.cell, finding.location.line, finding.location.column) == (3, 3, 5)


def test_fix_leaves_a_file_too_deep_to_parse_untouched(tmp_path):
    """Its fixable findings are not found: no tree, no fix; the file stays as it was, byte for
    byte, and its GL001 is reported at the deep statement. A notebook's deep cell is one GL001
    at that cell and its other cells are checked (docs/notebooks.md): their fix is written,
    the deep cell stays as it was."""
    from harness import check

    fixable = "import tensorflow as tf\r\nwith tf.Graph():\r\n    pass\r\n"
    files = {
        "deep.py": (fixable + "if 1:\r\n    y = " + DEEP + "\r\n").encode("utf-8"),
        "deep.ipynb": notebook(fixable.replace("\r", ""), "y = " + DEEP + "\n").encode(),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    code, out, err = check("--no-cache", "--fix", "--output-format", "concise", ".", cwd=tmp_path)
    assert code == 1, out + err
    assert (tmp_path / "deep.py").read_bytes() == files["deep.py"]
    fixed = files["deep.ipynb"].replace(b"with tf.Graph():", b"with tf.Graph().as_default():")
    assert fixed != files["deep.ipynb"] and (tmp_path / "deep.ipynb").read_bytes() == fixed
    assert "deep.py:5:5: GL001 too deeply nested to parse" in out, out
    assert "deep.ipynb:cell 3:1:1: GL001 too deeply nested to parse" in out, out
    assert "GL103" not in out, out  # (the notebook's is fixed)
