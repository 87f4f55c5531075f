"""The imports read from a file's bytes before the parse (graphlint.static.prefilter.scan_imports)
and the syntax-only check of the files they leave out of the analysis (graphlint.static.engine):
never an import the parser finds missed, never a file analysed less, never a GL001 changed."""

from __future__ import annotations

import ast
import importlib.util
import os
import py_compile
import symtable
from pathlib import Path

import pytest

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file
from graphlint.static.prefilter import decide, decide_imports, imports, scan_imports
from harness import check_json

ROOT = Path(__file__).resolve().parents[2]
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()


def _tensorflow_tree() -> Path | None:
    spec = importlib.util.find_spec("tensorflow")
    return Path(spec.origin).parent / "python" if spec is not None and spec.origin else None


def _key(node) -> tuple:
    names = tuple((a.name, a.asname) for a in node.names)
    if isinstance(node, ast.Import):
        return ("import", names)
    return ("from", node.level, node.module, names)


def _agrees(path: str, data: bytes) -> bool | None:
    """None when the scan cannot tell; else whether it found every import of the tree (it may
    find more: text in a docstring) and decided the file at least as relevant, with at least
    the tree's look-ups."""
    scanned = scan_imports(data)
    if scanned is None:
        return None
    tree = ast.parse(data)
    assert {_key(n) for n in imports(tree)} <= {_key(n) for n in scanned}, path
    exact, exact_probes = decide(path, tree, data)
    fast, fast_probes = decide_imports(path, scanned, data)
    assert fast or not exact, path
    assert set(exact_probes) <= set(fast_probes), path
    return True


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import a.b as c, d\n", [("import", (("a.b", "c"), ("d", None)))]),
        ("from . import x\n", [("from", 1, None, (("x", None),))]),
        ("from ..p.q import (r,\n    s as t,\n)\n", [("from", 2, "p.q", (("r", None), ("s", "t")))]),
        ("from m import *  # all\n", [("from", 0, "m", (("*", None),))]),
        ("import a . b\r\nfrom  x  import  y  as  z # c\r\n", [("import", (("a.b", None),)), ("from", 0, "x", (("y", "z"),))]),
        ("def f():\n    import tensorflow as tf\n", [("import", (("tensorflow", "tf"),))]),
        ("# import nothing\nx = 1  # import nothing either\n", []),
        ("# caf\u00e9: non-ASCII text elsewhere\nimport os\n", [("import", (("os", None),))]),
        ("# a comment\rimport os  # a lone CR ends the comment\n", [("import", (("os", None),))]),
        ("x = 1\rimport tensorflow\r", [("import", (("tensorflow", None),))]),  # old Mac line ends
        # a docstring example: no line of code starts with a prompt (the engine checks that the
        # file compiles before it trusts the scan)
        ('"""Example:\n\n    >>> import tensorflow as tf\n    ... import os\n"""\n', []),
        ("import importlib\nm = importlib.import_module('x')\ny = __import__('z')\n", [("import", (("importlib", None),))]),
        ("", []),
    ],
)
def test_the_scan_reads_whole_line_import_statements(source, expected):
    scanned = scan_imports(source.encode())
    assert [_key(n) for n in scanned] == expected


@pytest.mark.parametrize(
    "source",
    [
        "if x: import tensorflow as tf\n",  # not at the start of its line
        "try: import tensorflow\nexcept ImportError: pass\n",
        "x = 1; import tensorflow\n",
        "s = '# ' + 'import tensorflow'\n",  # a '#' inside a string is not a comment
        "from tensorflow \\\n    import keras\n",  # a continued line
        "from x import (a,  # a comment inside\n    b)\n",
        "# -*- coding: cp037 -*-\nimport os\n",  # a codec that decodes ASCII bytes otherwise
        "from tensorflow \\\r    import keras\r",
        "import \uff54ensorflow\n",  # a name the parser normalises (NFKC) to `tensorflow`
        "x = \"\"\"\n # \"\"\" ; import tensorflow\n",  # a '#' inside a string, the import after it
    ],
)
def test_the_scan_leaves_to_the_parser_what_the_bytes_cannot_tell(source):
    assert scan_imports(source.encode()) is None


def test_a_docstring_that_looks_like_an_import_only_adds_one(tmp_path):
    """Text the scan takes for an import can only make a file relevant: here the docstring
    line is read as `import tensorflow`, so the file is analysed, as the parser would not ask."""
    source = b'"""Usage:\nimport tensorflow as tf\n"""\nimport os\n'
    assert [_key(n) for n in scan_imports(source)] == [("import", (("tensorflow", "tf"),)), ("import", (("os", None),))]
    path = str(tmp_path / "doc.py")
    assert decide_imports(path, scan_imports(source), source)[0]
    assert not decide(path, ast.parse(source), source)[0]


def _trees() -> list[Path]:
    return [ROOT / "samples", ROOT / "graphlint"]


def _check_tree(root: Path) -> tuple[int, int]:
    told = total = 0
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, "rb") as fh:
                    data = fh.read()
                try:
                    ast.parse(data)
                except (SyntaxError, ValueError):
                    continue
                total += 1
                told += _agrees(path, data) is not None
    return told, total


def test_the_scan_finds_every_import_of_the_samples_and_graphlint():
    for root in _trees():
        told, total = _check_tree(root)
        assert total >= 50
        # the scan answers for most files (graphlint's own docstrings often name `import`)
        assert told >= (0.8 if root.name == "samples" else 0.4) * total, (root, told, total)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["corpus", "tensorflow"])
def test_the_scan_finds_every_import_of_real_code(which):
    root = CORPUS if which == "corpus" else _tensorflow_tree()
    if root is None or not root.is_dir():
        pytest.skip(f"{which} is not here")
    told, total = _check_tree(root)
    assert total >= 500
    assert told >= 0.8 * total, (told, total)


def _installed(tmp_path: Path) -> Path:
    """A folder of installed packages: where bytecode can prove a source compiles."""
    folder = tmp_path / "lib" / "site-packages"
    folder.mkdir(parents=True)
    return folder


def _static_rules() -> list[type]:
    return [c for c in discover_rules(plugins=False).values() if c.checks_statically()]


@pytest.mark.parametrize(
    "source",
    [
        "import os\nx = (\n",  # a syntax error in a file no rule can report on
        "import os\n\ndef f(:\n    pass\n",
        "import os\nprint 'python 2'\n",
        "import os\n" + "(" * 300 + ")" * 300 + "\n",  # too deeply nested for the parser
        "nonlocal x\n",  # refused by the compiler's symbol table, accepted by ast.parse: no GL001
        "import os\nx = '\\d'\n",  # an invalid escape warns, never fails
        "import os\nx = 1\n",
        ">>> import tensorflow as tf\n",  # a prompt outside a string: the scan skips it, the parse says
    ],
)
def test_the_syntax_only_check_reports_what_the_parse_reports(tmp_path, source):
    path = tmp_path / "plain.py"
    path.write_text(source)
    config = Config(root=str(tmp_path))
    rules = _static_rules()

    def found(**kw):
        return [(f.code, f.message, f.location.line, f.location.column) for f in check_file(str(path), rules, config, **kw).findings]

    assert found() == found(full=True)
    assert [code for code, *_ in found()] == (["GL001"] if "x = 1" not in source and "nonlocal" not in source and "\\d" not in source else [])
    # with no rule selected, a file is only checked for its syntax: the same GL001
    assert [f.code for f in check_file(str(path), [], config).findings] == [code for code, *_ in found()]


@pytest.mark.parametrize("ending", [b"\r\n", b"\r"], ids=["crlf", "cr"])
def test_line_endings_change_no_finding(tmp_path, ending):
    """Python ends a line at CR LF and at a lone CR too: the scan reads such files' imports
    as the parser does, so every bad sample keeps its findings."""
    config = Config(root=str(tmp_path))
    rules = _static_rules()
    compared = 0
    for sample in sorted((ROOT / "samples" / "rules").glob("gl*_bad*.py")):
        path = tmp_path / sample.name
        source = sample.read_bytes()
        docstring = ast.parse(source).body[0]
        if isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant):
            # a comment, not a docstring, above the imports: what the scan reads as a comment
            # must end where the line ends
            lines = source.split(b"\n")
            source = b"\n".join([b"# " + sample.name.encode()] + lines[docstring.end_lineno:])
        path.write_bytes(source.replace(b"\n", ending))
        fast = [(f.code, f.location.line) for f in check_file(str(path), rules, config).findings]
        full = [(f.code, f.location.line) for f in check_file(str(path), rules, config, full=True).findings]
        assert fast == full, sample.name
        compared += bool(full)
    assert compared >= 10  # the comparison is not between empty lists


class _Counted(bytes):
    """Bytes that add up how far each search may look (what a scan costs, without a clock)."""

    looked = 0

    def find(self, sub, start=0, end=None):
        end = len(self) if end is None else end
        at = super().find(sub, start, end)
        _Counted.looked += (at + len(sub) if at >= 0 else end) - start
        return at

    def rfind(self, sub, start=0, end=None):
        end = len(self) if end is None else end
        at = super().rfind(sub, start, end)
        _Counted.looked += end - (at if at >= 0 else start)
        return at


@pytest.mark.parametrize(
    "source",
    [
        b"# import x\n" * 20_000 + b"import os\n",
        b"# import x\r" * 20_000 + b"import os\r",  # no LF at all: lines end at each CR
        b"# import x\r\n" * 20_000 + b"import os\r\n",
        b"# " + b"import " * 20_000 + b"\nimport os\n",  # one long comment line
    ],
    ids=["lf", "cr", "crlf", "one-line"],
)
def test_the_scan_reads_a_file_once_however_many_comments_name_import(source):
    """Hostile input: a file of 10 MiB whose comments say `import` a million times is
    scanned in one pass (each search starts where the last one stopped), not once per word."""
    _Counted.looked = 0
    scanned = scan_imports(_Counted(source))
    assert [_key(n) for n in scanned] == [("import", (("os", None),))]
    assert _Counted.looked <= 10 * len(source)  # per word, it would be thousands of times


@pytest.mark.parametrize("mode", list(py_compile.PycInvalidationMode), ids=lambda m: m.name.lower())
def test_a_source_this_python_compiled_needs_no_syntax_check(tmp_path, monkeypatch, mode):
    """The interpreter's own ``__pycache__`` file proves a source compiles (an installed
    package's tree): no parse, no symbol table. It proves it only for the source it names:
    once the file changes, its syntax is checked again."""
    path = _installed(tmp_path) / "plain.py"
    path.write_text("import os\nx = 1\n")
    past = os.stat(path).st_mtime_ns - 100 * 10**9  # installed well before it was compiled
    os.utime(path, ns=(past, past))
    py_compile.compile(str(path), invalidation_mode=mode, doraise=True)
    config = Config(root=str(tmp_path))
    rules = _static_rules()
    checked = []
    real = symtable.symtable
    monkeypatch.setattr(symtable, "symtable", lambda *a: checked.append(a) or real(*a))

    assert check_file(str(path), rules, config).findings == []
    assert checked == []  # proved by the bytecode
    path.write_text("import os\nx = (1,\n")  # another size, another hash: the pyc no longer names it
    assert [f.code for f in check_file(str(path), rules, config).findings] == ["GL001"]
    assert len(checked) == 1


@pytest.mark.parametrize(
    "forge",
    [
        lambda head, good: b"\0\0\0\0" + head[4:],  # another Python's magic number
        lambda head, good: head[:8] + bytes(8),  # another source's mtime and size
        lambda head, good: head[:4] + (3).to_bytes(4, "little") + bytes(8),  # another source's hash
        lambda head, good: head[:4] + (4).to_bytes(4, "little") + head[8:],  # flags no Python writes
        lambda head, good: head[:10],  # cut short
    ],
    ids=["magic", "timestamp", "hash", "flags", "short"],
)
def test_bytecode_that_does_not_name_the_source_hides_no_syntax_error(tmp_path, forge):
    path = _installed(tmp_path) / "plain.py"
    path.write_text("import os\nx = 1\n")
    past = os.stat(path).st_mtime_ns - 100 * 10**9  # compiled well after its last change
    os.utime(path, ns=(past, past))
    cached = Path(py_compile.compile(str(path), doraise=True))
    path.write_text("import os\nx = (\n")  # broken, with the same size and the same mtime
    os.utime(path, ns=(past, past))
    head = cached.read_bytes()[:16]
    cached.write_bytes(forge(head, path.read_bytes()))
    config = Config(root=str(tmp_path))
    assert [f.code for f in check_file(str(path), _static_rules(), config).findings] == ["GL001"]


def test_an_installed_tree_is_proved_by_its_own_bytecode():
    """pip writes each installed module's bytecode: on the installed TensorFlow tree nearly
    every file's syntax is proved by it (the TF tree's fast path), and each one proved does
    compile."""
    from graphlint.static.engine import _compiled

    tree = _tensorflow_tree()
    assert tree is not None and tree.is_dir()  # TensorFlow is a test dependency
    files = sorted(tree.rglob("*.py"))[::8]
    proved = []
    for path in files:
        data = path.read_bytes()
        if _compiled(str(path), data):
            proved.append(path)
            symtable.symtable(data, str(path), "exec")  # raises if it did not compile
    assert len(files) >= 100 and len(proved) >= 0.9 * len(files), (len(proved), len(files))


PREFILTER = {
    "bom": "\ufeffimport tensorflow as tf\nwith tf.Graph():\n    pass\n",
    "crlf": "import tensorflow as tf\r\nwith tf.Graph():\r\n    pass\r\n",
    "cr": "import tensorflow as tf\rwith tf.Graph():\r    pass\r",
    "semicolon": "x = 1; import tensorflow as tf\nwith tf.Graph():\n    pass\n",
    "formfeed": "\fimport tensorflow as tf\nwith tf.Graph():\n    pass\n",
    "if": "if True: import tensorflow as tf\nwith tf.Graph():\n    pass\n",
    "continuation": "import \\\n    tensorflow as tf\nwith tf.Graph():\n    pass\n",
    "from-continuation": "from \\\n tensorflow import Graph\nwith Graph():\n    pass\n",
}

@pytest.mark.parametrize("case", sorted(PREFILTER))
def test_prefilter_is_never_stricter_than_the_parser(tmp_path, case):
    path = tmp_path / "a.py"
    path.write_bytes(PREFILTER[case].encode("utf-8"))
    _, findings = check_json("a.py", cwd=tmp_path)
    assert [f["code"] for f in findings] == ["GL103"]
