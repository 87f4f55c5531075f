"""GL202's static form: ``get_variable`` for a name that already exists, without reuse —
inside a ``try`` whose ``except`` swallows the "already exists" error; one full name created
twice on one straight path; or in a function that builds its model again each time it runs
(the model's :func:`~graphlint.static.model.rebuilds.rebuilds`)."""

from __future__ import annotations

import ast

from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model.rebuilds import rebuilds
from graphlint.static.model.variables import reuses_variables, reusing

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphlint.static.model.module import Module
    from graphlint.static.model.scopes import CallSite

_CATCHES_VALUE_ERROR = frozenset({"ValueError", "Exception", "BaseException"})
_GETS = ("get_variable", "get_local_variable")


def _swallows(handler: ast.ExceptHandler) -> bool:
    """A handler that does not re-raise (``e.args += (hint,); raise`` swallows nothing)."""
    return not any(isinstance(stmt, ast.Raise) for stmt in handler.body)


def _catches_value_error(handler: ast.ExceptHandler) -> bool:
    if not _swallows(handler):
        return False
    kind = handler.type
    if kind is None:
        return True
    names = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    return any(isinstance(n, ast.Name) and n.id in _CATCHES_VALUE_ERROR for n in names)


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _arg(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def _full_name(call: CallSite) -> str | None:
    """The variable's full name when the call and every variable_scope around it are literal
    and none of those scopes asks for reuse; None when unsure."""
    if not isinstance(call.node, ast.Call):
        return None
    name = _literal(_arg(call.node, 0, "name"))
    if name is None:
        return None
    parts = []
    for w in call.withs:
        if w.call_name is None or not w.call_name.endswith("variable_scope"):
            continue
        node = w.expr
        if any(kw.arg in ("reuse", "default_name", "custom_getter") for kw in node.keywords):
            return None
        scope = _literal(_arg(node, 0, "name_or_scope"))
        if scope is None:
            return None
        parts.append(scope)
    return "/".join(parts + [name])


def check(module: Module, options: dict[str, Any]) -> list[Hit]:
    return list(once_per_line(variable_exists(module)))


def variable_exists(module: Module) -> list[Hit]:
    """The three forms (see the module docstring), in that order."""
    found = []
    reported = set()
    gets = [c for c in module.calls if c.name is not None and c.name.endswith(_GETS) and c.api in _GETS]
    # 1. the "already exists" ValueError caught and swallowed (the first such call per try)
    tried = set()
    for call in sorted(gets, key=lambda c: (c.line, c.node.col_offset)):
        if reusing(module, call):
            continue
        for node, part in call.trys:
            if part == "body" and any(_catches_value_error(h) for h in node.handlers):
                if id(node) in tried:
                    break
                tried.add(id(node))
                handler = next(h for h in node.handlers if _catches_value_error(h))
                found.append(
                    Hit(
                        call.node,
                        f"`get_variable` inside a try whose `except` (line {handler.lineno}) catches "
                        "the \"already exists\" ValueError: the model is being built a second time",
                    )
                )
                reported.add(id(call))
                break
    # 2. one full name created twice on one straight path
    first_at: dict = {}
    for call in sorted(gets, key=lambda c: (c.line, c.node.col_offset)):
        if id(call) in reported or reuses_variables(module, call.scope):
            continue
        name = _full_name(call)
        if name is None:
            continue
        key = (id(call.scope), call.block, name)
        earlier = first_at.setdefault(key, call)
        if earlier is not call:
            found.append(
                Hit(
                    call.node,
                    f"variable '{name}' is created a second time without reuse (TensorFlow "
                    "raises \"already exists\")",
                    ((earlier.node, f"'{name}' was first created here"),),
                )
            )
            reported.add(id(call))
    # 3. get_variable in a function that rebuilds its model per call
    get_ids = {id(c) for c in gets}
    for rebuild in rebuilds(module):
        fn = rebuild.function
        if reuses_variables(module, fn) or any(
            w.call_name and w.call_name.endswith("variable_scope") for s in fn.callers for w in s.withs
        ):
            continue
        own = [c for c in fn.calls if id(c) in get_ids and not c.under_graph_default() and id(c) not in reported]
        named = [c for c in own if _full_name(c) is not None]
        if named and len(named) == len(own):
            call = min(named, key=lambda c: (c.line, c.node.col_offset))
            found.append(
                Hit(
                    call.node,
                    f"variable '{_full_name(call)}' is created again each time {fn.display} runs, "
                    f"without reuse: its second run raises \"already exists\"",
                    tuple((s.node, "called here") for s in rebuild.sites[:2]),
                )
            )
    return found
