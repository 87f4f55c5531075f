"""`--fix` on the samples (issue 23's proof): over the whole samples tree, the fixes remove the
fixable findings, and of the others only one the fix itself resolves — no finding appears —
they change only the lines of the fixed findings, every file still parses, and a bad sample
whose findings are all fixable comes out as silent as its good twin."""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

from click.testing import CliRunner

from graphlint.cli import main
from graphlint.static.notebook import read_notebook

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
FIXABLE = {"GL103"}


def run(*args, cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, ["check", "--no-cache", "--no-plugins", *args], catch_exceptions=False)
    finally:
        os.chdir(old)


def findings(cwd: Path) -> list[tuple]:
    result = run("--format", "json", ".", cwd=cwd)
    assert result.exit_code in (0, 1), result.output
    return sorted((f["path"], f.get("cell"), f["line"], f["code"]) for f in json.loads(result.stdout)["findings"])


def cells(path: Path) -> str:
    """The notebook's code cells as one module, IPython's syntax blanked."""
    return read_notebook(path.read_bytes()).source


def test_fix_on_the_samples_removes_only_the_fixable_findings(tmp_path):
    tree = tmp_path / "samples"
    shutil.copytree(SAMPLES, tree)
    before = findings(tree)
    texts = {p: p.read_bytes() for p in tree.rglob("*") if p.suffix in (".py", ".ipynb")}
    fixable = [f for f in before if f[3] in FIXABLE]
    assert len(fixable) >= 3  # the .py samples and the notebook

    result = run("--fix", ".", cwd=tree)
    assert f"fixed {len(fixable)} finding" in result.stderr

    after = findings(tree)
    fixed_files = {tree / f[0] for f in fixable}
    assert set(after) <= set(before) - set(fixable)  # nothing new
    gone = set(before) - set(after) - set(fixable)
    # a finding the fix itself resolves: each call's graph is now the default, nothing is
    # rebuilt in the global one
    assert gone == {("rules/gl101_bad_with_graph.py", None, 19, "GL101")}
    for path, old in texts.items():
        new = path.read_bytes()
        if path not in fixed_files:
            assert new == old, path
            continue
        if path.suffix == ".py":
            ast.parse(new)
            changed = [n for n, (a, b) in enumerate(zip(old.splitlines(), new.splitlines()), 1) if a != b]
            assert len(old.splitlines()) == len(new.splitlines())
            assert changed == sorted({f[2] for f in fixable if tree / f[0] == path}), path
        else:
            ast.parse(cells(path))


def test_a_bad_sample_whose_findings_are_all_fixable_comes_out_like_its_good_twin(tmp_path):
    for name in ("gl103_bad.py", "gl103_good.py"):
        shutil.copy(SAMPLES / "rules" / name, tmp_path / name)
    run("--fix", "gl103_bad.py", cwd=tmp_path)
    assert findings(tmp_path) == []  # neither the fixed bad sample nor the good twin
