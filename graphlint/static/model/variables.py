"""``get_variable``'s reuse: whether a call shares an existing variable (GL102: no op is
built; GL202: no "already exists")."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphlint.static.model.module import Module
    from graphlint.static.model.scopes import CallSite, Function


def reusing(module: Module, call: CallSite) -> bool:
    """``get_variable`` that shares an existing variable (a ``reuse=True``/``AUTO_REUSE``
    scope, or ``reuse_variables()`` in its function): it adds no op, and its error is "does
    not exist", never "already exists"."""
    node = call.node
    if call.api not in ("get_variable", "get_local_variable") or not isinstance(node, ast.Call):
        return False
    for kw in node.keywords:
        if kw.arg == "reuse" and not (isinstance(kw.value, ast.Constant) and not kw.value.value):
            return True
    for w in call.withs:
        if w.call_name and w.call_name.endswith("variable_scope"):
            for kw in w.expr.keywords:
                if kw.arg == "reuse" and not (isinstance(kw.value, ast.Constant) and not kw.value.value):
                    return True
    return reuses_variables(module, call.scope)


def reuses_variables(module: Module, scope: Function | None) -> bool:
    """Whether a function (or the module body: None) calls ``scope.reuse_variables()``."""
    found = module.cache.get("reusing-scopes")
    if found is None:  # once per module: the scopes with such a call
        found = module.cache["reusing-scopes"] = {
            id(c.scope) if c.scope is not None else None for c in module.calls if c.method == "reuse_variables"
        }
    return (id(scope) if scope is not None else None) in found
