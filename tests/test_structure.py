"""The layout: the data path reads one way (program → probe → hook → rule → finding →
reporter; source → static analysis → finding), and every module stays small enough to read.

Imports are read from the parsed modules (``ast``), function-level imports included, so a
late ``from graphlint.probes... import`` inside a function counts like one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "graphlint"

#: (importing modules, forbidden modules): a module of the first may import none of the second.
FORBIDDEN = [
    ("graphlint.rules", ("graphlint.probes",)),
    ("graphlint.static", ("graphlint.rules", "graphlint.probes")),
    ("graphlint.report", ("graphlint.rules", "graphlint.probes")),
    ("graphlint.probes", ("graphlint.rules",)),
]

MAX_LINES = 400


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def imported(path: Path, package: Path = PACKAGE) -> list[tuple[int, str]]:
    """``(line, module)`` for every import of the file, wherever it stands; ``from a import b``
    counts as ``a.b`` too (``b`` may be a module)."""
    name = module_name(path, package)
    parent = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = parent.split(".")[: len(parent.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return found


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_imported_resolves_relative_and_function_level_imports(tmp_path):
    rules = tmp_path / "graphlint" / "rules"
    rules.mkdir(parents=True)
    source = rules / "example.py"
    source.write_text("def f():\n    from ..probes import tf_function\n    import graphlint.probes.lazy\n")
    found = imported(source, tmp_path / "graphlint")
    assert (2, "graphlint.probes.tf_function") in found and (3, "graphlint.probes.lazy") in found


@pytest.mark.parametrize("importer, forbidden", FORBIDDEN, ids=[f[0] for f in FORBIDDEN])
def test_imports_follow_the_data_path(importer, forbidden):
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
        for path in modules()
        if within(module_name(path), importer)
        for line, target in imported(path)
        if any(within(target, f) for f in forbidden)
    ]
    assert wrong == []


def test_modules_stay_under_400_lines():
    lengths = {
        str(path.relative_to(PACKAGE.parent)): len(path.read_text(encoding="utf-8").splitlines())
        for path in modules()
    }
    too_long = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert too_long == {}, "split these by job (no exceptions)"


FRAMEWORKS = ("tensorflow", "keras", "tf_keras", "jax", "torch")


def test_only_probes_import_a_framework_or_name_its_internals():
    """TensorFlow, Keras, JAX and PyTorch knowledge lives in graphlint/probes (static analysis names
    APIs as text and imports nothing)."""
    wrong = []
    for path in modules():
        name = module_name(path)
        if within(name, "graphlint.probes"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, target in imported(path):
            if target.split(".")[0] in FRAMEWORKS:
                wrong.append(f"{name}:{line} imports {target}")
        if within(name, "graphlint.static"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value.startswith(("tensorflow.python", "keras.src", "jax._src")):
                    wrong.append(f"{name}:{node.lineno} names {node.value}")
    assert wrong == []


def test_plurals_come_from_one_helper():
    """``plural(n, "finding")`` (graphlint.text), not ``finding{'s' * (n != 1)}`` by hand."""
    import re

    by_hand = re.compile(r"""['"]s['"] \* \(|['"]['"] if \w+ == 1 else ['"]s['"]""")
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{n}"
        for path in modules()
        if path.name != "text.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if by_hand.search(line)
    ]
    assert wrong == []


def test_hooks_no_built_in_rule_implements_are_documented_plugin_only():
    import inspect

    from graphlint import _hookspecs
    from graphlint.jupyter.rules import CELL_RULES
    from graphlint.registry import discover_rules

    specs = {name: fn for name, fn in vars(_hookspecs).items() if name.startswith("graphlint_")}
    implemented = {
        name
        for cls in [*discover_rules(plugins=False).values(), *CELL_RULES]
        for name, _ in inspect.getmembers(cls, callable)
        if name in specs
    }
    plugin_only = {name for name, fn in specs.items() if "plugin-only" in (fn.__doc__ or "")}
    assert set(specs) - implemented == plugin_only


def test_ruff_check_is_clean():
    """``ruff check graphlint tests`` with the project's [tool.ruff] settings (CI runs it too)."""
    import shutil
    import subprocess
    import sys

    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    root = PACKAGE.parent
    proc = subprocess.run([ruff, "check", "graphlint", "tests"], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
