"""The layout, by concept: the data path reads one way (program → probe → hook → rule →
finding → reporter; source → static model → check → finding), a rule is one unit, and a
static check reads the model and nothing of another check.

Imports are read from the parsed modules (``ast``), function-level imports included, so a
late ``from graphlint.probes... import`` inside a function counts like one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness import HANG_GUARD

PACKAGE = Path(__file__).resolve().parents[2] / "graphlint"

#: (importing modules, forbidden modules): a module of the first may import none of the second.
FORBIDDEN = [
    ("graphlint.rules", ("graphlint.probes",)),
    ("graphlint.static", ("graphlint.rules", "graphlint.probes")),
    ("graphlint.report", ("graphlint.rules", "graphlint.probes")),
    ("graphlint.probes", ("graphlint.rules",)),
    # the model every check reads holds no check, and no engine part
    ("graphlint.static.model", ("graphlint.rules", "graphlint.probes", "graphlint.static.engine", "graphlint.static.checks")),
    # the language server serves the static engine: nothing that runs the user's code
    ("graphlint.server", ("graphlint.probes", "graphlint.runner", "graphlint.instrument", "graphlint.linter")),
]


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


# -- rules as units ------------------------------------------------------------------------------
RULES = PACKAGE / "rules"
#: The files of a rule unit: its class, docs and metadata; its runtime, static and kernel forms.
UNIT_FORMS = {"__init__.py", "runtime.py", "check.py", "kernel.py"}
#: What a static form (a unit's check.py, and the unit's modules it imports) may import of
#: graphlint: the model, the hits it returns, findings, plural(), the rules' JAX and torch wording.
CHECK_MAY_IMPORT = ("graphlint.static.model", "graphlint.static.hits", "graphlint.findings", "graphlint.text", "graphlint.rules._jax",
                    "graphlint.rules._torch")


def units() -> list[Path]:
    return sorted(p.parent for p in RULES.glob("*/__init__.py") if not p.parent.name.startswith("_"))


def graphlint_imports(path: Path) -> list[tuple[int, str]]:
    """The graphlint modules ``path`` imports (``from graphlint.x import y`` gives ``graphlint.x``,
    and ``graphlint.x.y`` only when that is a module)."""
    found = []
    for line, target in imported(path):
        if not within(target, "graphlint"):
            continue
        parts = target.split(".")
        as_file = PACKAGE.parent.joinpath(*parts)
        if as_file.with_suffix(".py").is_file() or (as_file / "__init__.py").is_file():
            found.append((line, target))
    return found


def static_modules(unit: Path) -> list[Path]:
    """A unit's static form: its check.py and the modules of the unit it imports (its own helpers)."""
    todo, seen = [unit / "check.py"], []
    while todo:
        path = todo.pop()
        if not path.is_file() or path in seen:
            continue
        seen.append(path)
        for _, target in graphlint_imports(path):
            if within(target, module_name(unit)) and target != module_name(unit):
                todo.append(PACKAGE.parent.joinpath(*target.split(".")).with_suffix(".py"))
    return seen


def test_every_built_in_rule_is_a_unit_named_after_it():
    from graphlint.registry import discover_rules

    rules = discover_rules(plugins=False)
    assert {RULES / cls.name.replace("-", "_") for cls in rules.values()} == set(units())
    for cls in rules.values():
        unit = RULES / cls.name.replace("-", "_")
        assert cls.__module__ == module_name(unit / "__init__.py"), f"{cls.code} is defined outside its unit"
        forms = {p.name for p in unit.glob("*.py")}
        assert ("runtime" in cls.engines) == ("runtime.py" in forms) or not forms - {"__init__.py"}, cls.code
        assert ("static" in cls.engines) == ("check.py" in forms) or not forms - {"__init__.py"}, cls.code
        helpers = forms - UNIT_FORMS
        assert helpers <= {p.name for p in static_modules(unit)}, f"{unit.name}: {helpers} belong to no form"


@pytest.mark.parametrize("unit", [u for u in units() if (u / "check.py").is_file()], ids=lambda u: u.name)
def test_a_check_imports_only_the_model_never_another_check(unit):
    """A rule's static form reads the static model (graphlint/static/model) and returns hits;
    an analysis two checks share belongs to the model, so no check imports another unit, the
    engine, or anything of the runtime."""
    own = module_name(unit)
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
        for path in static_modules(unit)
        for line, target in graphlint_imports(path)
        if not within(target, own) and not any(within(target, allowed) for allowed in CHECK_MAY_IMPORT)
    ]
    assert wrong == []


def test_a_unit_imports_no_other_unit_but_its_kernel_form_its_own():
    names = {module_name(u) for u in units()}
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
        for unit in units()
        for path in unit.glob("*.py")
        for line, target in graphlint_imports(path)
        if any(within(target, other) for other in names - {module_name(unit)})
    ]
    assert wrong == []


def test_a_units_rule_class_loads_none_of_its_forms():
    """The rule class (docs, metadata) is what every command loads; each engine loads the form
    it runs when it first asks (Rule.runtime_form, static_form, kernel_form)."""
    wrong = [
        f"{unit.name}/__init__.py:{line} imports {target}"
        for unit in units()
        for line, target in graphlint_imports(unit / "__init__.py")
        if within(target, module_name(unit)) and target != module_name(unit)
    ]
    assert wrong == []


def test_runtime_forms_never_load_the_static_engine():
    """``graphlint run`` imports the rules: their runtime forms must not drag the static model
    in (and a rule's __init__ loads its static form only when asked: Rule.static_form)."""
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
        for unit in units()
        for path in (unit / "__init__.py", unit / "runtime.py", unit / "kernel.py")
        if path.is_file()
        for line, target in graphlint_imports(path)
        if within(target, "graphlint.static")
    ]
    assert wrong == []


def test_the_static_engine_makes_no_rule_instance(monkeypatch):
    """A static form is a plain function of the model: checking a file builds no rule object
    (none half-built either), whatever the rule's runtime state."""
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.rules._base import Rule
    from graphlint.static import check_file

    made = []
    real = Rule.__init__
    # (__init__, not __new__: deleting a patched __new__ leaves CPython's tp_new slot calling
    # object.__new__ with the arguments, which breaks every later Rule(...) in the process)
    monkeypatch.setattr(Rule, "__init__", lambda self, *a, **k: made.append(type(self)) or real(self, *a, **k))
    rules = [cls for cls in discover_rules(plugins=False).values() if cls.checks_statically()]
    samples = sorted((PACKAGE.parent / "samples" / "rules").glob("gl*_bad*.py"))
    found = [f for path in samples for f in check_file(str(path), rules, Config()).findings]
    assert found and made == []


def test_the_static_layout_is_the_model_and_the_engine():
    """graphlint/static holds the model (model/) and the engine's own modules; every static
    analysis of a rule lives in the rule's unit."""
    engine = {"__init__.py", "engine.py", "checks.py", "hits.py", "cache.py", "files.py", "fixes.py", "notebook.py", "notebook_json.py",
              "cores.py", "prefilter.py", "pool.py", "depth.py", "buffers.py"}
    assert {p.name for p in (PACKAGE / "static").glob("*.py")} == engine
    assert {p.name for p in (PACKAGE / "static").iterdir() if p.is_dir() and p.name != "__pycache__"} == {"model"}


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
    from graphlint.jupyter.rules import kernel_rules
    from graphlint.registry import discover_rules

    specs = {name: fn for name, fn in vars(_hookspecs).items() if name.startswith("graphlint_")}
    rules = discover_rules(plugins=False).values()
    implemented = {
        name
        for cls in [*(r.runtime_form() for r in rules), *kernel_rules(rules)]
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
    proc = subprocess.run([ruff, "check", "graphlint", "tests"], cwd=root, capture_output=True, text=True, timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_test_modules_have_unique_names():
    """pytest imports each test module by its basename (rootdir-relative ``prepend`` mode, no
    ``__init__.py``): two ``test_x.py`` in different folders fail collection in CI's order."""
    seen: dict[str, Path] = {}
    clashes = []
    for path in sorted((PACKAGE.parent / "tests").rglob("test_*.py")):
        if path.name in seen:
            clashes.append(f"{seen[path.name].relative_to(PACKAGE.parent)} and {path.relative_to(PACKAGE.parent)}")
        seen.setdefault(path.name, path)
    assert not clashes, clashes
