"""A notebook's findings are never lost to what is not its code (issue 23): a coding comment in
a cell (the cells are UTF-8 JSON text), the size of its outputs (the 10 MiB limit is for the
code cells' source), or a lone surrogate in a cell (one GL001 at that cell, never a crash
that loses every other file's findings)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphlint.cli import main
from graphlint.static import engine

TAIL = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"
MiB = 1024 * 1024


def write_notebook(path: Path, *sources: str, outputs=(), ensure_ascii=False) -> Path:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# title"]}]
    for source in sources:
        cells.append({"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": list(outputs), "source": source})
    doc = {"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=ensure_ascii), encoding="utf-8")
    return path


def check(*args):
    result = CliRunner().invoke(main, ["check", "--no-plugins", "--format", "json", *map(str, args)], catch_exceptions=False)
    assert result.exit_code in (0, 1), (result.exit_code, result.stderr)
    return [(f["code"], f.get("cell"), f["line"]) for f in json.loads(result.stdout)["findings"]]


def plot(megabytes: int) -> dict:
    """An output cell's PNG, as Jupyter stores it (base64 text)."""
    return {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo" + "A" * (megabytes * MiB), "text/plain": ["<Figure>"]}}


@pytest.mark.parametrize("comment", ["# coding: ascii", "# -*- coding: latin-1 -*-", "# coding: no-such-codec"])
def test_a_coding_comment_in_a_cell_loses_no_finding(tmp_path, comment):
    path = write_notebook(tmp_path / "nb.ipynb", f"{comment}\n# naïve café\n" + TAIL)
    assert check("--no-cache", path) == [("GL103", 2, 4)]


def test_a_notebook_large_by_its_outputs_keeps_its_findings_and_its_fix(tmp_path):
    path = write_notebook(tmp_path / "plots.ipynb", TAIL, outputs=[plot(12)])
    assert os.path.getsize(path) > engine.MAX_BYTES
    assert check(path) == [("GL103", 2, 2)]
    assert check(path) == [("GL103", 2, 2)]  # again, from the cache
    result = CliRunner().invoke(main, ["check", "--fix", "--no-plugins", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(path.read_text())
    assert doc["cells"][1]["source"] == TAIL.replace("tf.Graph()", "tf.Graph().as_default()")
    assert doc["cells"][1]["outputs"] == [plot(12)]


def test_code_cells_over_the_limit_are_one_gl001(tmp_path):
    big = "x = 1  # " + "a" * 1000 + "\n"
    path = write_notebook(tmp_path / "gen.ipynb", TAIL, big * (engine.MAX_BYTES // len(big) + 1))
    ((code, _, _),) = check("--no-cache", path)
    assert code == "GL001"


def test_a_notebook_file_over_its_own_limit_is_one_gl001_without_being_read(tmp_path):
    path = write_notebook(tmp_path / "huge.ipynb", TAIL)
    with open(path, "r+b") as fh:
        fh.truncate(engine.MAX_NOTEBOOK_BYTES + 1)  # sparse: nothing is written
    ((code, _, _),) = check("--no-cache", path)
    assert code == "GL001"


def test_a_lone_surrogate_in_a_cell_is_one_gl001_and_the_rest_is_checked(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text(
        '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "x = 1\\n# \\ud800\\n"}],'
        ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    good = write_notebook(tmp_path / "good.ipynb", TAIL)
    assert check("--no-cache", bad, good) == [("GL001", 1, 2), ("GL103", 2, 2)]
