"""GL103's static form: ``with`` entered on a ``tf.Graph()`` call, or on a name that is certainly
one; it offers the ``.as_default()`` fix.

A name is certainly a graph when every binding of it, in the scope Python resolves it in
(:func:`~graphlint.static.model.scopes.resolve_name`: its function's local, an enclosing
function's for a closure or ``nonlocal``, the module's for ``global`` or an unbound name, with
the bindings other scopes make through ``global``/``nonlocal``), is ``name = tf.Graph()`` or
``with tf.Graph().as_default() as name``. Anything else bound to it there — a file
(``if (g := open(p)):``), a parameter, ``except ... as g``, ``case g``, an import — leaves both
the finding and the fix out: ``with f.as_default():`` on a file would break working code.
``self.graph`` keeps its origins as the model records them (``self.graph = tf.Graph()``).
"""

from __future__ import annotations

import ast

from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model.scopes import GRAPH, resolve_name

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphlint.static.model.module import Module


def check(module: Module, options: dict[str, Any]) -> list[Hit]:
    found = []
    for item in module.withs:
        expr = item.expr
        if isinstance(expr, ast.Call):
            hit = item.call_name == GRAPH
        elif isinstance(expr, ast.Name):
            hit = _certainly_a_graph(module, expr.id, item.stmt)
        else:
            hit = isinstance(expr, ast.Attribute) and module.origins(expr, item.scope) == {GRAPH}
        if not hit:
            continue
        found.append(
            Hit(
                expr,
                "`with` on a tf.Graph does not make it the default graph: ops built in this block "
                "still go to the global default graph",
            )
        )
        assert expr.end_lineno is not None and expr.end_col_offset is not None, "a parsed node has its end"
        end = module.offset(expr.end_lineno, expr.end_col_offset)
        module.add_edit("GL103", expr.lineno, end, end, ".as_default()")
    return list(once_per_line(found))


def _certainly_a_graph(module: Module, name: str, stmt: ast.stmt) -> bool:
    if name not in _graph_names(module):
        return False  # no scope binds it to a graph: no need to resolve it
    resolved = resolve_name(module, name, stmt)
    if resolved is None:
        return False
    scope, bindings = resolved
    key = ("graph-variable", id(scope), name)
    if key not in module.cache:  # once per variable, however many `with` read it
        module.cache[key] = all(_graph_binding(module, kind, value) for kind, value in bindings)
    return module.cache[key]


def _graph_names(module: Module) -> set:
    """The names some scope of the file binds to a graph (their origins say so): the only ones
    a `with` may be certain of. Once per module, from the origins the model already has."""
    found = module.cache.get("graph-names")
    if found is None:
        found = module.cache["graph-names"] = {key[-1] for key, labels in module.origin_items() if GRAPH in labels}
    return found


def _graph_binding(module: Module, kind: str, value: ast.AST | None) -> bool:
    """``name = tf.Graph()``, or ``with tf.Graph().as_default() as name``."""
    if kind == "as":
        func = value.func if isinstance(value, ast.Call) else None
        if not (isinstance(func, ast.Attribute) and func.attr == "as_default"):
            return False
        value = func.value
    elif kind != "=":
        return False
    return isinstance(value, ast.Call) and module.bindings.resolve(value.func) == GRAPH
