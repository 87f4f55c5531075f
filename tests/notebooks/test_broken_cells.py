"""A notebook with a cell that does not parse: Jupyter runs every other cell, so graphlint
checks every other cell and reports a GL001 for each cell that fails (it once reported the
first and checked nothing else). The lines a finding's text names are the cell's and line's
the user sees, never the line of the module graphlint joins the cells into."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphlint.cli import main
from graphlint.static.notebook import read_notebook

SETUP = "import numpy as np\nimport tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
STEP = "def step(x):\n    return model.predict(x)\n"
LOOP = "for i in range(100):\n    step(np.zeros((1, 4)))\n"
FIXABLE = "with tf.Graph():\n    pass\n"


def write(path: Path, cells: list[str], kernel: str = "python3") -> Path:
    doc = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# title"]}]
        + [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": c} for c in cells],
        "metadata": {"kernelspec": {"language": "python", "name": kernel}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def check(path: Path, *args: str) -> tuple[int, list[dict]]:
    result = CliRunner().invoke(
        main, ["check", "--no-cache", "--no-plugins", "--format", "json", *args, str(path)], catch_exceptions=False
    )
    return result.exit_code, json.loads(result.stdout)["findings"]


def sites(findings: list[dict]) -> set[tuple[str, int | None, int]]:
    return {(f["code"], f["cell"], f["line"]) for f in findings}


def test_every_other_cell_is_checked_and_each_broken_cell_is_a_gl001(tmp_path):
    path = write(tmp_path / "nb.ipynb", [SETUP, "s = 'unterminated\n", STEP, "%time x = 1\nprint(1 +)\n", LOOP])
    code, findings = check(path)
    assert code == 1
    # cells are numbered on screen: the markdown title is cell 1
    assert sites(findings) == {("GL001", 3, 1), ("GL504", 4, 2), ("GL001", 5, 2)}
    by_code = {f["code"]: f for f in findings}
    assert "unterminated string literal (detected at cell 3, line 1)" in [
        f["message"] for f in findings if f["cell"] == 3
    ][0]
    assert "called in a loop (cell 6, line 2)" in by_code["GL504"]["message"]


def test_a_notebook_whose_cells_all_parse_is_as_before(tmp_path):
    path = write(tmp_path / "nb.ipynb", [SETUP, STEP, LOOP])
    assert sites(check(path)[1]) == {("GL504", 3, 2)}


def test_a_python_2_notebook_is_one_gl001(tmp_path):
    """Its other cells are Python 2 too, whatever of them parses as Python 3."""
    path = write(tmp_path / "nb.ipynb", [SETUP, "print 'hello'\n", STEP, "print 'again'\n", LOOP], kernel="python2")
    (finding,) = check(path)[1]
    assert (finding["code"], finding["cell"]) == ("GL001", 3) and "Python 2" in finding["message"]


def test_fix_changes_only_the_fixed_text_beside_a_broken_cell(tmp_path):
    path = write(tmp_path / "nb.ipynb", ["import tensorflow as tf\n", "s = 'unterminated\n", FIXABLE, "x = (\n"])
    before = path.read_bytes()
    result = CliRunner().invoke(main, ["check", "--fix", "--no-cache", "--no-plugins", str(path)], catch_exceptions=False)
    assert result.exit_code == 1, result.stderr  # the two GL001 are left
    assert path.read_bytes() == before.replace(b"with tf.Graph():", b"with tf.Graph().as_default():")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("is called in a loop (line 7)", "is called in a loop (cell 3, line 2)"),
        ("see line 1 and line 9", "see cell 1, line 1 and cell 4, line 1"),
        ("it is called in a loop of train.py (line 7)", "it is called in a loop of train.py (line 7)"),
        ("no line here", "no line here"),
        ("outline 7", "outline 7"),
    ],
)
def test_the_lines_a_text_names_are_the_cells(text, expected):
    doc = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": s}
                  for s in ["a = 1\n", "b = 2\nc = 3\nd = 4\nx = 5\n", "e = 5\nf = 6\ng = 7\n", "h = 8\n"]],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }
    notebook = read_notebook(json.dumps(doc).encode())
    assert notebook is not None
    assert notebook._cell_lines(text) == expected


DEEP = "-" * 5000 + "1"  # a chain of unary minus: the parser's RecursionError, no place named


@pytest.mark.parametrize(
    ("cell", "message", "line", "column"),
    [
        ("x = 1\nif x:\n    y = " + DEEP + "\n", "too deeply nested to parse", 3, 5),
        ("x = " + "(" * 201 + "1" + ")" * 201 + "\n", "SyntaxError: too many nested parentheses", 1, 205),
        ("x = 1\ny = 2\0\n", "SyntaxError: source code string cannot contain null bytes", 1, 1),
        ("x = 1\ns = '\ud800'\n", "cannot decode the cell: a lone surrogate (U+D800) is no character", 2, 6),
    ],
    ids=["too-deep", "too-many-parentheses", "null-byte", "lone-surrogate"],
)
def test_a_cell_that_fails_in_any_way_is_one_gl001_and_the_others_are_checked(tmp_path, cell, message, line, column):
    """Every way a cell can fail to parse is reported at that cell: the cells before and
    after it are still checked, their findings at their own cells and lines."""
    path = write(tmp_path / "nb.ipynb", [SETUP, STEP, cell, LOOP])
    code, findings = check(path)
    assert code == 1
    assert sites(findings) == {("GL504", 3, 2), ("GL001", 4, line)}
    (broken,) = [f for f in findings if f["code"] == "GL001"]
    assert (broken["message"], broken["column"]) == (message, column)
    (loop,) = [f for f in findings if f["code"] == "GL504"]
    assert "called in a loop (cell 5, line 2)" in loop["message"]


def test_a_cell_too_deep_to_analyse_is_one_gl001_and_the_others_are_checked(tmp_path, monkeypatch):
    """A cell that parses but is deeper than the analysis goes (a Python whose parser goes
    deeper than graphlint's recursion limit; here the limit is lowered to stand for it)."""
    from graphlint.static import depth

    elifs = "if x == 0:\n    pass\n" + "".join(f"elif x == {k}:\n    pass\n" for k in range(1, 1200))
    monkeypatch.setattr(depth, "RECURSION_LIMIT", 2000)
    path = write(tmp_path / "nb.ipynb", [SETUP, STEP, "x = 1\n" + elifs, LOOP])
    code, findings = check(path)
    assert code == 1
    assert sites(findings) == {("GL504", 3, 2), ("GL001", 4, 1)}
    (broken,) = [f for f in findings if f["code"] == "GL001"]
    assert broken["message"] == "too deeply nested to analyse"


def test_a_module_line_is_a_cell_and_its_line_for_fixes_and_their_view():
    """One function (notebook.in_cell) for --fix's fixed findings and --show-fixes' edits."""
    from graphlint.static.notebook import in_cell

    doc = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# t"}]
        + [{"cell_type": "code", "metadata": {}, "outputs": [], "source": s} for s in ["a = 1\nb = 2\n", "", "c = 3\n"]],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }
    notebook = read_notebook(json.dumps(doc).encode())
    assert [in_cell(notebook, line) for line in (1, 2, 3)] == [(1, 2), (2, 2), (1, 4)]
    assert in_cell(None, 7) == (7, None)
