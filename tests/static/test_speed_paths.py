"""The fast paths of ``graphlint check`` lose no finding: the import prefilter
(graphlint.static.prefilter) and the cache of results (graphlint.static.cache) give exactly
what the full analysis of every file gives, on every sample and on a corpus of real code."""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
import textwrap
from pathlib import Path

import pytest

from harness import FORECASTER  # a model built and run per call, in a module of the tree

from graphlint.config import Config, load
from graphlint.registry import discover_rules
from graphlint.static import check_file, collect
from graphlint.static.prefilter import relevant

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()


def _static_rules(config: Config) -> list[type]:
    rules = discover_rules(plugins=False)
    return [
        cls
        for code, cls in rules.items()
        if cls.checks_statically() and config.is_selected(code)
    ]


def _fast_and_full(root: Path) -> tuple[int, list[str]]:
    """The number of findings of the full analysis, and each file where the fast path differs."""
    config = load(None, start=str(root))
    rules = _static_rules(config)
    differ, total = [], 0
    for path in collect([str(root)], config):
        full = check_file(path, rules, config, full=True).findings
        fast = check_file(path, rules, config).findings
        total += len(full)
        if fast != full:
            differ.append(f"{path}: fast {[f.code for f in fast]} != full {[f.code for f in full]}")
    return total, differ


def test_the_prefilter_loses_no_finding_on_the_samples():
    total, differ = _fast_and_full(SAMPLES)
    assert total >= 30  # the samples' bad programs: the comparison is not between two empty lists
    assert differ == []


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus (real TensorFlow code) is not here")
def test_the_prefilter_loses_no_finding_on_the_corpus():
    total, differ = _fast_and_full(CORPUS)
    assert total >= 1
    assert differ == []


@pytest.mark.slow
@pytest.mark.parametrize("root", [SAMPLES, CORPUS], ids=["samples", "corpus"])
def test_the_process_pool_finds_what_one_process_finds(root):
    """Workers check runs of neighbouring files and share parses within a run: the same
    findings as one process checking every file in order."""
    from graphlint.static import check_files

    if not root.is_dir():
        pytest.skip(f"{root} is not here")
    config = load(None, start=str(root))
    rules = _static_rules(config)
    files = collect([str(root)], config)
    assert len(files) >= 64  # enough for the pool (engine.PARALLEL_MIN_FILES)

    def findings(results):
        return sorted((f.location.path, f.location.line, f.code, f.message, repr(f.related)) for r in results for f in r.findings)

    serial = findings(check_files(files, rules, config, jobs=1))
    assert len(serial) >= 3
    assert findings(check_files(files, rules, config, jobs=2)) == serial


def _relevant(tmp_path: Path, source: str, name: str = "checked.py") -> bool:
    path = tmp_path / name
    data = textwrap.dedent(source).encode()
    path.write_bytes(data)
    return relevant(str(path), ast.parse(data), data)


@pytest.mark.parametrize(
    "source",
    [
        "import tensorflow as tf\n",
        "import tensorflow.compat.v1 as tf1\n",
        "from tensorflow import keras\n",
        "import keras\n",
        "from tf_keras import layers\n",
        "import jax.numpy as jnp\n",
        "import tensorflow_hub as hub\n",
        # binds `tensorflow` itself: `tensorflow.compat.v1.Session()` is public
        "import tensorflow.python.ops\n",
        # Keras inside TensorFlow: canonicalised to keras.*
        "from tensorflow.python.keras import layers\n",
        "from tensorflow.python import keras\n",
        "from tensorflow import python\nlayer = python.keras.layers.Dense(3)\n",
        "def build():\n    import tensorflow as tf\n    return tf.constant(1)\n",
        "try:\n    import tensorflow as tf\nexcept ImportError:\n    tf = None\n",
        "if True:\n    with open('x') as fh:\n        import tensorflow as tf\n",
        "match 1:\n    case 1:\n        import tensorflow as tf\n",
        "class A:\n    def f(self):\n        from keras import Model\n",
        "from . import model\n",
        "from .model import Net\n",
    ],
)
def test_a_file_whose_imports_can_reach_a_rule_is_analysed(tmp_path, source):
    assert _relevant(tmp_path, source)


@pytest.mark.parametrize(
    "source",
    [
        "import os\nimport numpy as np\n",
        "# uses tensorflow and keras in a comment only\nx = 'jax'\n",
        "from tensorflow.python.ops import array_ops\nfrom tensorflow.python.framework import ops as ops_lib\n",
        "from tensorflow.core.protobuf import config_pb2\n",
        "import tensorflow.python.ops.math_ops as math_ops\n",
        "from tensorflow import python\nx = python.ops\n",
        "",
    ],
)
def test_a_file_whose_imports_reach_no_rule_is_only_parsed(tmp_path, source):
    assert not _relevant(tmp_path, source)


def test_an_import_of_a_module_beside_the_file_makes_it_relevant(tmp_path):
    (tmp_path / "model.py").write_text("import tensorflow as tf\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "util.py").write_text("")
    assert _relevant(tmp_path, "import model\n")
    assert _relevant(tmp_path, "from pkg.util import helper\n")
    assert _relevant(tmp_path, "def f():\n    import pkg.util as u\n")
    assert not _relevant(tmp_path, "import numpy\nimport not_here\n")




def test_imports_that_decide_make_no_look_up_in_a_project_that_records_nothing(tmp_path):
    """``import tensorflow`` decides alone: with no cache to record the look-ups of its other
    imports (``import helper``, ``import numpy``), no folder is searched for them; a project
    that records (a cache's) still makes and keeps every one, and an undecided file is looked
    up as before."""
    from graphlint.static.model.project import Project
    from graphlint.static.prefilter import decide

    (tmp_path / "helper.py").write_text("")
    path = str(tmp_path / "main.py")
    source = b"import helper\nimport numpy\nimport tensorflow as tf\n"
    quiet = Project(record=False)
    assert decide(path, ast.parse(source), source, quiet) == (True, [])
    assert quiet._found == {} and quiet._tops == {}  # nothing searched
    relevant, looked = decide(path, ast.parse(source), source, Project())
    assert relevant and [(dotted, hit) for _, _, dotted, hit in looked] == [("helper", str(tmp_path / "helper.py"))]
    undecided = b"import helper\nimport numpy\n"
    relevant, looked = decide(path, ast.parse(undecided), undecided, Project(record=False))
    assert relevant and [dotted for _, _, dotted, _ in looked] == ["helper"]


def test_a_module_beside_an_installed_package_is_not_the_users_own(tmp_path):
    """Checking a package inside site-packages: ``import helper`` from it finds no module of
    the user's (what lies beside the package is other installed code); the same layout under
    a folder of the user's does."""
    for folder, expected in (("site-packages", False), ("dist-packages", False), ("src", True)):
        pkg = tmp_path / folder / "pkg"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (tmp_path / folder / "helper.py").write_text("import tensorflow as tf\n")
        assert _relevant(tmp_path, "import helper\n", name=f"{folder}/pkg/main.py") is expected, folder
        assert _relevant(tmp_path, "import helper\n", name=f"{folder}/main.py")  # beside the file itself


def test_a_file_that_names_no_framework_but_calls_a_model_of_the_tree_is_reported(tmp_path):
    """main.py spells neither TensorFlow nor Keras: the GL101 comes through the module it imports."""
    (tmp_path / "forecaster.py").write_text(FORECASTER)
    main = tmp_path / "main.py"
    main.write_text("import numpy as np\nfrom forecaster import forecast\n\nfor day in range(7):\n    print(forecast(np.ones((1, 4))))\n")
    config = Config(root=str(tmp_path))
    found = check_file(str(main), _static_rules(config), config).findings
    assert [(f.code, f.location.line) for f in found] == [("GL101", 5)]
    assert os.path.basename(found[0].related[0].location.path) == "forecaster.py"


def test_a_file_checked_and_followed_is_parsed_once_with_the_findings_of_a_fresh_run(tmp_path, monkeypatch):
    """forecaster.py is checked itself and followed from main.py: one parse serves both, in
    either order, and every file's findings are those of a run that checks it alone."""
    from graphlint.static.model.project import Project

    (tmp_path / "forecaster.py").write_text(FORECASTER)
    (tmp_path / "main.py").write_text(
        "import numpy as np\nfrom forecaster import forecast\n\nfor day in range(7):\n    print(forecast(np.ones((1, 4))))\n"
    )
    paths = [str(tmp_path / "forecaster.py"), str(tmp_path / "main.py")]
    config = Config(root=str(tmp_path))
    rules = _static_rules(config)

    def alone(path):
        return check_file(path, rules, config).findings  # a project of its own

    expected = {path: alone(path) for path in paths}
    assert [f.code for f in expected[paths[1]]] == ["GL101"]
    assert expected[paths[1]][0].related[0].location.path == paths[0]
    parses = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: parses.append(1) or real_parse(*a, **k))
    for order in (paths, paths[::-1]):
        run = Project()  # one run's
        parses.clear()
        assert {path: check_file(path, rules, config, project=run).findings for path in order} == expected
        assert len(parses) == 2, order  # not 3: the engine and the follower share forecaster.py's


def test_a_module_checked_sixty_files_before_its_follower_is_not_parsed_again(tmp_path, monkeypatch):
    """A package's module that its later files follow (a ``tf_util.py``) is checked early in
    the run's order and followed from a file checked 60 files later: the engine's model of it
    serves the follower, with the findings of a run that checks the follower alone."""
    from graphlint.static.model.project import Project

    (tmp_path / "aaa_forecaster.py").write_text(FORECASTER)
    others = [tmp_path / f"mid{i:02d}.py" for i in range(60)]
    for other in others:
        other.write_text("import tensorflow as tf\n\nprint(tf.constant(1))\n")
    main = tmp_path / "zzz_main.py"
    main.write_text("from aaa_forecaster import forecast\n\nfor day in range(7):\n    print(forecast([[1.0] * 4]))\n")
    config = Config(root=str(tmp_path))
    rules = _static_rules(config)
    expected = check_file(str(main), rules, config).findings
    assert [f.code for f in expected] == ["GL101"]
    parsed = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda data, filename="<unknown>", *a, **k: parsed.append(filename) or real_parse(data, filename, *a, **k))
    run = Project(record=False)  # a --no-cache run's
    found = [check_file(str(p), rules, config, project=run).findings for p in [tmp_path / "aaa_forecaster.py", *others, main]]
    assert found[-1] == expected
    assert parsed.count(str(tmp_path / "aaa_forecaster.py")) == 1


# -- the cache ---------------------------------------------------------------------------------
def _run(paths: list[str], config: Config, cache_root: Path | None, monkeypatch=None) -> tuple[list, list[str]]:
    """(findings, the files analysed afresh) of one `graphlint check` run."""
    from graphlint.static import engine
    from graphlint.static.cache import Cache

    analysed: list[str] = []
    inner = engine._check_files

    def spy(todo, *args):
        analysed.extend(todo)
        return inner(todo, *args)

    rules = _static_rules(config)
    cache = Cache.open(str(cache_root), rules, config) if cache_root is not None else None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "_check_files", spy)
        results = engine.check_files(paths, rules, config, jobs=1, cache=cache)
    _run.fixable = [r.path for r in results if r.edits]  # never stored: --fix reads the file
    return [f for r in results for f in r.findings], analysed


def _cached_twice(root: Path, cache_root: Path) -> None:
    config = load(None, start=str(root))
    paths = collect([str(root)], config)
    plain, _ = _run(paths, config, None)
    first, analysed_first = _run(paths, config, cache_root)
    second, analysed_second = _run(paths, config, cache_root)
    assert len(plain) >= 1
    assert first == plain and second == plain
    assert analysed_first == paths and analysed_second == _run.fixable


def test_a_second_run_on_the_unchanged_samples_reads_everything_from_the_cache(tmp_path):
    _cached_twice(SAMPLES, tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus (real TensorFlow code) is not here")
def test_a_second_run_on_the_unchanged_corpus_reads_everything_from_the_cache(tmp_path):
    _cached_twice(CORPUS, tmp_path)


def _tree(tmp_path: Path, forecaster: str = FORECASTER) -> tuple[Path, Config]:
    (tmp_path / "forecaster.py").write_text(forecaster)
    main = tmp_path / "main.py"
    main.write_text("from forecaster import forecast\n\nfor day in range(7):\n    print(forecast([[1.0] * 4]))\n")
    return main, Config(root=str(tmp_path))


def test_a_changed_file_is_analysed_again(tmp_path):
    main, config = _tree(tmp_path)
    assert [f.code for f in _run([str(main)], config, tmp_path)[0]] == ["GL101"]
    main.write_text("from forecaster import forecast\n\nprint(forecast([[1.0] * 4]))\n")
    found, analysed = _run([str(main)], config, tmp_path)
    assert (found, analysed) == ([], [str(main)])


def test_a_change_in_a_module_the_analysis_followed_is_seen(tmp_path):
    main, config = _tree(tmp_path)
    assert [f.code for f in _run([str(main)], config, tmp_path)[0]] == ["GL101"]
    # the model is now built in a graph of its own each call: nothing to report at the loop
    (tmp_path / "forecaster.py").write_text(
        FORECASTER.replace("    inputs = tf1", "    with tf.Graph().as_default():\n        inputs = tf1", 1)
        .replace("\n    prediction", "\n        prediction")
        .replace("\n    with tf1.Session() as sess:\n        return", "\n        with tf1.Session() as sess:\n            return")
    )
    found, analysed = _run([str(main)], config, tmp_path)
    assert (found, analysed) == ([], [str(main)])


def test_a_module_that_appears_beside_the_file_is_seen(tmp_path):
    main = tmp_path / "main.py"
    main.write_text("from forecaster import forecast\n\nfor day in range(7):\n    print(forecast([[1.0] * 4]))\n")
    config = Config(root=str(tmp_path))
    assert _run([str(main)], config, tmp_path)[0] == []
    (tmp_path / "forecaster.py").write_text(FORECASTER)
    found, analysed = _run([str(main)], config, tmp_path)
    assert ([f.code for f in found], analysed) == (["GL101"], [str(main)])


def test_another_selection_is_another_cache(tmp_path):
    main, config = _tree(tmp_path)
    _run([str(main)], config, tmp_path)
    found, analysed = _run([str(main)], Config(root=str(tmp_path), ignore=["GL101"]), tmp_path)
    assert (found, analysed) == ([], [str(main)])


def test_a_corrupt_cache_is_an_empty_one(tmp_path):
    from graphlint.static.cache import DIRECTORY, digest

    main, config = _tree(tmp_path)
    _run([str(main)], config, tmp_path)
    entry = b'{"digest": "%s", "findings": [], "deps": [], "probes": [[1, 2]]}' % digest(main.read_bytes()).encode()
    for garbage in (
        b"{not json",
        b"[" * 100_000,  # deeper than the JSON reader recurses
        b'{"format": 1, "entries": []}',
        b'{"format": 1, "entries": {"%s": 7}}' % str(main).encode(),
        b'{"format": 1, "entries": {"%s": %s}}' % (str(main).encode(), entry),
    ):
        for stored in (tmp_path / DIRECTORY).rglob("*.json"):
            stored.write_bytes(garbage)
        found, analysed = _run([str(main)], config, tmp_path)
        assert ([f.code for f in found], analysed) == (["GL101"], [str(main)])


def test_a_cache_that_cannot_be_written_leaves_the_run_whole(tmp_path):
    main, config = _tree(tmp_path)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")  # the cache folder would have to be created inside a file
    for _ in range(2):
        found, analysed = _run([str(main)], config, blocked)
        assert ([f.code for f in found], analysed) == (["GL101"], [str(main)])


def test_no_cache_neither_reads_nor_writes_it(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from graphlint.cli import main as cli
    from graphlint.static.cache import DIRECTORY

    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRAPHLINT_NO_CACHE", raising=False)
    first = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "json", "main.py"])
    assert first.exit_code == 1 and '"GL101"' in first.output
    assert not (tmp_path / DIRECTORY).exists()
    second = CliRunner().invoke(cli, ["check", "--format", "json", "main.py"])
    assert second.exit_code == 1 and second.output == first.output
    assert (tmp_path / DIRECTORY / ".gitignore").read_text().splitlines()[-1] == "*"


def test_graphlint_cache_dir_puts_the_cache_elsewhere(tmp_path, monkeypatch):
    from graphlint.static.cache import DIRECTORY

    (tmp_path / "tree").mkdir()
    main, config = _tree(tmp_path / "tree")
    monkeypatch.setenv("GRAPHLINT_CACHE_DIR", str(tmp_path / "elsewhere"))
    _run([str(main)], config, tmp_path / "tree")
    found, analysed = _run([str(main)], config, tmp_path / "tree")
    assert ([f.code for f in found], analysed) == (["GL101"], [])
    assert list((tmp_path / "elsewhere").rglob("*.json")) and not (tmp_path / "tree" / DIRECTORY).exists()


def test_a_read_only_tree_gets_no_cache_folder(tmp_path):
    from graphlint.static.cache import DIRECTORY

    (tmp_path / "ro").mkdir()
    main, config = _tree(tmp_path / "ro")
    (tmp_path / "ro").chmod(0o555)
    try:
        for _ in range(2):
            found, analysed = _run([str(main)], config, tmp_path / "ro")
            assert ([f.code for f in found], analysed) == (["GL101"], [str(main)])
        assert not (tmp_path / "ro" / DIRECTORY).exists()
    finally:
        (tmp_path / "ro").chmod(0o755)


@pytest.mark.parametrize("extra, pruned", [(1, True), (0, False)])
def test_a_run_over_a_tree_forgets_the_files_that_are_gone(tmp_path, extra, pruned):
    from graphlint.static.cache import PRUNE_MIN_FILES, Cache

    paths = []
    for i in range(PRUNE_MIN_FILES):
        (tmp_path / f"m{i}.py").write_text(f"x = {i}\n")
        paths.append(str(tmp_path / f"m{i}.py"))
    config = Config(root=str(tmp_path))
    _run(paths, config, tmp_path)
    os.remove(paths[0])
    for i in range(extra):  # the next run checks PRUNE_MIN_FILES - 1 + extra files
        (tmp_path / f"new{i}.py").write_text("y = 2\n")
        paths.append(str(tmp_path / f"new{i}.py"))
    _run(paths[1:], config, tmp_path)
    entries = Cache.open(str(tmp_path), _static_rules(config), config).entries
    assert (paths[0] not in entries) == pruned and paths[1] in entries


# -- start-up (the pre-commit case) ------------------------------------------------------------
_IMPORTED_BY_CHECK = """
import sys
from graphlint.cli import main
sys.argv = ["graphlint", "check", "--no-cache", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    print("exit", exit.code, *sorted(m for m in sys.modules if m.split(".")[0] in ("pathspec", "tensorflow")))
"""


def _modules_after_check(cwd: Path, *args: str) -> tuple[str, set[str]]:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _IMPORTED_BY_CHECK, *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.splitlines()[-1].split()
    assert out[0] == "exit"
    return out[1], {m.split(".")[0] for m in out[2:]}


def test_checking_one_named_file_does_not_import_the_gitignore_matcher(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.graphlint]\n")
    (tmp_path / "one.py").write_bytes((SAMPLES / "rules" / "gl101_bad.py").read_bytes())
    status, modules = _modules_after_check(tmp_path, "one.py")
    assert status == "1"  # its GL101 was found
    assert modules == set()
    (tmp_path / "pyproject.toml").write_text('[tool.graphlint]\nexclude = ["build/"]\n')
    # a named file is checked whatever exclude says (as ruff): only --force-exclude needs the matcher
    assert _modules_after_check(tmp_path, "one.py") == ("1", set())
    assert _modules_after_check(tmp_path, "--force-exclude", "one.py") == ("1", {"pathspec"})


_ALL_IMPORTED_BY_CHECK = _IMPORTED_BY_CHECK.replace('if m.split(".")[0] in ("pathspec", "tensorflow")', "")
#: The runtime engine and what only it needs: `graphlint check` must import none of them.
_RUNTIME_ONLY = (
    "graphlint.stacks", "graphlint.events", "graphlint.linter", "graphlint.probes", "graphlint.runner",
    "graphlint._hookspecs", "graphlint.child", "graphlint._boot", "graphlint.plugin", "graphlint.jupyter", "pluggy", "tensorflow",
    "jax", "keras", "importlib.metadata",
)


def _imported(cwd: Path, *args: str) -> tuple[str, set[str]]:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _ALL_IMPORTED_BY_CHECK, *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.splitlines()[-1].split()
    assert out[0] == "exit"
    return out[1], set(out[2:])


def _runtime_modules(modules: set[str]) -> set[str]:
    return {m for m in modules if m in _RUNTIME_ONLY or m.startswith(tuple(p + "." for p in _RUNTIME_ONLY))}


def test_checking_one_file_imports_no_runtime_code_and_only_the_selected_rules_analyses(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.graphlint]\n")
    (tmp_path / "one.py").write_bytes((SAMPLES / "rules" / "gl101_bad.py").read_bytes())
    (tmp_path / "plain.py").write_text("import os\n\nprint(os.sep)\n")
    status, modules = _imported(tmp_path, "one.py")
    assert status == "1"  # its GL101 was found
    assert _runtime_modules(modules) == set()
    assert "graphlint.rules.graph_rebuilt.check" in modules  # GL101's static form ran
    assert {m for m in modules if m.startswith("graphlint.rules.") and m.endswith(".runtime")} == set()
    if any(importlib.util.find_spec(m) for m in ("_sha256", "_sha2")):
        assert "_hashlib" not in modules  # the digests use the built-in SHA-256, not OpenSSL's
    status, modules = _imported(tmp_path, "--select", "GL101", "one.py")
    assert status == "1" and _runtime_modules(modules) == set()
    assert "graphlint.rules.graph_rebuilt.check" in modules
    # the static forms of rules not selected are never loaded
    assert {f"graphlint.rules.{unit}.check" for unit in ("function_retraced", "session_churn", "op_in_run_loop")} & modules == set()
    # a file that imports no framework reaches no rule: none of the analyses is loaded
    status, modules = _imported(tmp_path, "plain.py")
    assert status == "0" and _runtime_modules(modules) == set()
    assert {m for m in modules if m.startswith("graphlint.rules.") and m.endswith(".check")} == set()
    assert "graphlint.static.model.rebuilds" not in modules


def test_the_pool_forks_only_a_process_without_other_threads(monkeypatch):
    """A forked worker could inherit a lock that another thread (JAX's, TensorFlow's) holds:
    with such a library loaded or a thread running, the workers start from a fresh
    interpreter (forkserver), which finds the same findings (the pool test above runs in a
    process that may have loaded either)."""
    import threading

    from graphlint.static import pool

    methods = ["fork", "spawn", "forkserver"]
    for name in pool._THREADED:
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert pool._start_method(methods) == "fork"
    assert pool._start_method(["spawn"]) is None  # no fork here: the platform's default
    monkeypatch.setitem(sys.modules, "jax", sys)  # any module object will do
    assert pool._start_method(methods) == "forkserver"
    monkeypatch.delitem(sys.modules, "jax")
    monkeypatch.setattr(threading, "active_count", lambda: 2)  # another thread runs
    assert pool._start_method(methods) == "forkserver"


def test_a_module_found_through_its_importers_is_read_from_the_cache_again(tmp_path):
    # the serving module's finding comes from an importer two folders up, found through the
    # package's re-export (graphlint.static.model.project.Project.importers): its look-up was
    # recorded as an import from the module that a replay could never find again, so every
    # run analysed the module anew (the corpus's tflearn/estimators/ensemble/forest.py)
    serve = (
        "import numpy as np\nimport tensorflow as tf\n\nmodel = None\n\n\ndef predict(image):\n    global model\n"
        "    if model is None:\n        model = tf.keras.applications.MobileNetV2()\n"
        "    return model.predict(np.expand_dims(np.asarray(image), 0))\n"
    )
    routes = (
        "from fastapi import FastAPI\n\nfrom application.components import predict\n\napp = FastAPI()\n\n\n"
        '@app.post("/predict/image")\nasync def predict_api(image):\n    return predict(image)\n'
    )
    tree = tmp_path / "tree"
    for name, text in {
        "application/__init__.py": "",
        "application/components/__init__.py": "from .prediction.serve_model import predict\n",
        "application/components/prediction/serve_model.py": serve,
        "application/server/main.py": routes,
    }.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
        os.utime(tree / name, (1e9, 1e9))  # (a file written within the second is not cached yet)
    _cached_twice(tree, tmp_path)
