"""Operators on tensors in a run loop's body (``x = x + 1`` where ``x`` is a tensor): each
step adds an op to the graph (part of GL102's static form).

A name counts as a tensor when every assignment of it in its scope is an op-building call or
an operator on such names; a loop target, a ``with ... as`` name or any other assignment makes
it something else. Operators under a first-time guard or the iteration's own ``as_default()``
graph, and operators with a string operand, are not reported.
"""

from __future__ import annotations

import ast
from typing import Any

from graphlint.static.model.repeats import guarded
from graphlint.static.model.values import LEAVES, walk_scope
from graphlint.static.model.api import builds_ops

_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _tensors(module, scope) -> set:
    """Names in a function (or the module body) bound only to tensors: op-building calls and
    operators on such names."""
    key = ("tensors", id(scope))
    found = module.cache.get(key)
    if found is not None:
        return found
    body = scope.node.body if scope is not None else module.tree.body
    kinds: dict[str, set] = {}
    assigns: list[tuple[str, ast.expr | ast.AugAssign]] = []
    for node in walk_scope(body, LEAVES):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigns.append((node.targets[0].id, node.value))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            assigns.append((node.target.id, node))
        elif isinstance(node, (ast.For, ast.comprehension, ast.withitem)):
            target = getattr(node, "target", None) or getattr(node, "optional_vars", None)
            for leaf in ast.walk(target) if target is not None else ():
                if isinstance(leaf, ast.Name):
                    kinds.setdefault(leaf.id, set()).add("other")
    for name, value in assigns:
        if isinstance(value, ast.Call):
            kind = "tensor" if builds_ops(module.bindings.resolve(value.func)) else "other"
        elif isinstance(value, (ast.BinOp, ast.AugAssign, ast.UnaryOp)):
            kind = "op"
        else:
            kind = "other"
        kinds.setdefault(name, set()).add(kind)
    found = {name for name, k in kinds.items() if "tensor" in k and "other" not in k}
    module.cache[key] = found
    return found


def _has_tensor_names(module, scope) -> bool:
    """Whether some name of this scope is assigned from an op-building call (cheap: origins)."""
    index = module.cache.get("tensor-scopes")
    if index is None:
        index = {scope for scope, labels in module.name_origins() if any(builds_ops(lb) for lb in labels)}
        module.cache["tensor-scopes"] = index
    return (id(scope) if scope is not None else None) in index


def _operands(loop) -> set:
    """The names used as operands of operators in a loop's body."""
    names = set()
    for node in walk_scope([loop.node], LEAVES):
        if isinstance(node, ast.BinOp):
            for side in (node.left, node.right):
                if isinstance(side, ast.Name):
                    names.add(side.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def tensor_operators(module, loop) -> list:
    """``x = x + 1`` and friends on a tensor, directly in a run loop's body (first-time guards
    and the iteration's own graph excluded). Returns ``(ast node, ifs)``, one per line: the
    ``(ast.If, branch)`` parts around it in the loop, or None when it sits in a loop nested in
    this one (whose passes those ``if`` parts do not count)."""
    if loop.is_comprehension or not _has_tensor_names(module, loop.scope):
        return []
    op_names = {
        name
        for name in _operands(loop)
        if any(builds_ops(label) for label in module.origins(ast.Name(id=name), loop.scope))
    }  # assigned from an op somewhere: worth reading the whole scope
    if not op_names:
        return []
    tensors = _tensors(module, loop.scope) & op_names
    if not tensors:
        return []
    out: list[tuple[ast.AST, tuple | None]] = []
    lines: set[int] = set()
    stack: list[tuple[Any, tuple | None]] = [(stmt, ()) for stmt in loop.node.body]  # any node
    while stack:
        node, ifs = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if ifs is not None and isinstance(node, _LOOPS):
            ifs = None  # the if parts around a nested loop do not bound how often its body runs
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
            isinstance(i.context_expr, ast.Call) and getattr(i.context_expr.func, "attr", "") == "as_default"
            for i in node.items
        ):
            continue
        if isinstance(node, ast.If):
            stack.append((node.test, ifs))
            stack.extend((s, ifs + ((node, "body"),) if ifs is not None else None) for s in node.body)
            stack.extend((s, ifs + ((node, "orelse"),) if ifs is not None else None) for s in node.orelse)
            continue
        operands: tuple[ast.expr, ...] = ()
        if isinstance(node, ast.BinOp):
            operands = (node.left, node.right)
        elif isinstance(node, ast.AugAssign):
            operands = (node.target,)
        if any(isinstance(o, ast.Name) and o.id in tensors for o in operands) and not any(
            isinstance(o, ast.Constant) and isinstance(o.value, str) for o in operands
        ):
            if not guarded(ifs or ()) and node.lineno not in lines:
                lines.add(node.lineno)
                out.append((node, ifs))
            continue
        stack.extend((child, ifs) for child in ast.iter_child_nodes(node))
    return out
