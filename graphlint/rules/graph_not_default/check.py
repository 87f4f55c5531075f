"""GL103's static form: ``with`` entered on a ``tf.Graph()`` call, or on a name bound only to
one; it offers the ``.as_default()`` fix."""

from __future__ import annotations

import ast

from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model.scopes import GRAPH


def check(module, options) -> list[Hit]:
    found = []
    for item in module.withs:
        expr = item.expr
        if isinstance(expr, ast.Call):
            hit = item.call_name == GRAPH
        else:
            hit = isinstance(expr, (ast.Name, ast.Attribute)) and module.origins(expr, item.scope) == {GRAPH}
        if not hit:
            continue
        found.append(
            Hit(
                expr,
                "`with` on a tf.Graph does not make it the default graph: ops built in this block "
                "still go to the global default graph",
            )
        )
        end = module.offset(expr.end_lineno, expr.end_col_offset)
        module.add_edit("GL103", expr.lineno, end, end, ".as_default()")
    return list(once_per_line(found))
