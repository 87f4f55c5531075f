"""The event path, program -> probe -> hook -> rule, holds by construction: no generated code is
compiled or run anywhere in graphlint, nothing reads a private attribute of pluggy, and probes
know nothing of rules (they import none and read no rule attribute).

Read from the parsed sources (``ast``), so a late import or an attribute read inside a function
counts like one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pluggy

PACKAGE = Path(__file__).resolve().parents[2] / "graphlint"
RUNNERS = {"exec", "eval", "compile"}


def _sources(under: Path = PACKAGE):
    for path in sorted(under.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"


# -- no generated code ----------------------------------------------------------------------------
def _functions_and_module(tree: ast.Module):
    """The module and each function: the scopes a name's assignments are looked up in."""
    return [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]


def _assigned(scope: ast.AST, name: str) -> list[ast.expr]:
    values = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            values.append(node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            if node.target.id == name and node.value is not None:
                values.append(node.value)
    return values


def _runner(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name) and func.id in RUNNERS:
        return func.id
    if isinstance(func, ast.Attribute) and func.attr in RUNNERS and isinstance(func.value, ast.Name):
        if func.value.id == "builtins":
            return func.attr
    return None


def _generated(expr: ast.expr | None, scope: ast.AST, depth: int = 0) -> bool:
    """Whether ``expr`` is source text graphlint writes itself (a literal, an f-string, lines
    joined or formatted), or code compiled from such text."""
    if expr is None or depth > 5:
        return False
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (str, bytes))
    if isinstance(expr, ast.JoinedStr):
        return True
    if isinstance(expr, ast.BinOp):
        return _generated(expr.left, scope, depth + 1) or _generated(expr.right, scope, depth + 1)
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in ("join", "format", "format_map"):
            return True
        if _runner(expr) == "compile":
            return _generated(_code_argument(expr), scope, depth + 1)
        return False
    if isinstance(expr, ast.Name):
        return any(_generated(value, scope, depth + 1) for value in _assigned(scope, expr.id))
    return False


def _code_argument(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    for keyword in call.keywords:
        if keyword.arg in ("source", "object"):
            return keyword.value
    return None


def generated_code_runs(tree: ast.Module) -> list[ast.Call]:
    """The exec/eval/compile calls of ``tree`` whose code graphlint generated."""
    found = []
    for scope in _functions_and_module(tree):
        body = scope.body if isinstance(scope, ast.Module) else [scope]
        for node in (n for part in body for n in ast.walk(part)):
            if isinstance(node, ast.Call) and _runner(node) and _generated(_code_argument(node), scope):
                if node not in found:
                    found.append(node)
    return found


def test_the_generated_code_check_tells_generated_code_from_the_users_program():
    generated = ast.parse(
        "def make(name, params):\n"
        "    lines = [f'def {name}({params}):', '    pass']\n"
        "    code = compile('\\n'.join(lines), '<gen>', 'exec')\n"
        "    exec(code, {})\n"
        "def wrap(method):\n"
        "    source = f'def w(self):\\n    return m(self)\\n'\n"
        "    exec(compile(source, '<w>', 'exec'), {})\n"
        "eval('1 + 1')\n"
    )
    users = ast.parse(
        "def run(path, main):\n"
        "    source = read(path)\n"
        "    code = compile(source, path, 'exec', dont_inherit=True)\n"
        "    exec(code, main.__dict__)\n"
    )
    assert len(generated_code_runs(generated)) == 5  # compile and exec in make and in wrap, eval
    assert generated_code_runs(users) == []


def test_no_generated_code_is_compiled_or_run_anywhere_in_graphlint():
    found = [_where(path, call) for path, tree in _sources() for call in generated_code_runs(tree)]
    assert found == []


# -- pluggy's public API only ---------------------------------------------------------------------
def _pluggy_private_names() -> set[str]:
    """Every private attribute pluggy's objects have: of its classes, and of live objects (a
    manager with a spec and a registered plugin, its hook caller, spec and implementation)."""

    class Spec:
        @pluggy.HookspecMarker("probe")
        def event(self, value):
            """An event."""

    class Plugin:
        @pluggy.HookimplMarker("probe")
        def event(self, value):
            pass

    pm = pluggy.PluginManager("probe")
    pm.add_hookspecs(Spec)
    pm.register(Plugin())
    caller = pm.hook.event
    objects = [pm, pm.hook, caller, caller.spec, *caller.get_hookimpls(), pluggy.HookspecMarker("probe"),
               pluggy.HookimplMarker("probe"), pluggy.Result, pluggy.HookCaller, pluggy.HookImpl]
    names = set()
    for obj in objects:
        names.update(dir(obj))
        names.update(getattr(obj if isinstance(obj, type) else type(obj), "__slots__", ()))
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def test_pluggy_private_names_are_known_to_the_check():
    names = _pluggy_private_names()
    assert {"_hookimpls", "_name2plugin", "_add_hookimpl", "_inner_hookexec", "_hookexec"} <= names


def test_nothing_reads_a_private_attribute_or_module_of_pluggy():
    private = _pluggy_private_names()
    found = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private:
                found.append(f"{_where(path, node)} .{node.attr}")
            elif isinstance(node, ast.Constant) and node.value in private:
                found.append(f"{_where(path, node)} {node.value!r}")  # getattr(x, "_hookimpls")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pluggy._"):
                found.append(f"{_where(path, node)} from {node.module}")
            elif isinstance(node, ast.Import):
                found += [f"{_where(path, node)} import {a.name}" for a in node.names if a.name.startswith("pluggy._")]
    assert found == []


# -- probes know nothing of rules -----------------------------------------------------------------
#: What a probe may not import: the rules, and what holds rules (the linter, the registry).
RULE_MODULES = ("graphlint.rules", "graphlint.linter", "graphlint.registry")


def _imports(path: Path, tree: ast.Module) -> list[tuple[int, str]]:
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module or ""
            found += [(node.lineno, module)] + [(node.lineno, f"{module}.{a.name}") for a in node.names]
    return found


def _rule_attributes() -> set[str]:
    """What a rule has that nothing else does: the attributes and methods of ``Rule`` and of an
    instance (``name`` aside: hooks, probes and ops have one too)."""
    from graphlint.rules._base import Rule

    names = set(vars(Rule)) | set(vars(Rule(sink=None)))
    return {n for n in names if not n.startswith("__")} - {"name"}


def test_probes_import_no_rule():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}"
        for path, tree in _sources(PACKAGE / "probes")
        for line, module in _imports(path, tree)
        if any(module == m or module.startswith(m + ".") for m in RULE_MODULES)
    ]
    assert found == []


def test_probes_read_no_rule_attribute():
    rule = _rule_attributes()
    assert {"report", "report_internal_error", "code", "_sink"} <= rule
    found = [
        f"{_where(path, node)} .{node.attr}"
        for path, tree in _sources(PACKAGE / "probes")
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and (node.attr in rule or node.attr.startswith("_graphlint"))
    ]
    assert found == []
