"""How many times a call runs: the product of the counts of the loops around it
(:func:`graphlint.static.loop_counts.loop_count`), where an ``if`` on a loop's counter may let
only a few of its passes through (:func:`guard_bound`). Every analysis that compares a count
with a runtime threshold asks here."""

from __future__ import annotations

import ast

from graphlint.static.loop_counts import RANGES, _unwrapped, dotted_name, loop_count
from graphlint.static.weight_loops import bound_in


def times_run(module, site) -> int | None:
    """How many times the loops around a call site run it (the product of their
    :func:`loop_count`, or of how many of a loop's passes an ``if`` on its counter lets the
    call run: :func:`guard_bound`); None when the source does not fix one of them."""
    total = 1
    loops = site.loops
    for i, loop in enumerate(loops):
        n = loop_count(module, loop)
        end = loops[i + 1].depth[1] if i + 1 < len(loops) else len(site.ifs)
        bound = guard_bound(module, loop, site.ifs[loop.depth[1]:end])
        if bound is not None:
            n = bound if n is None else min(n, bound)
        if n is None:
            return None
        total *= n
    return total


def guard_bound(module, loop, ifs) -> int | None:
    """How many passes of a ``for`` loop over ``range``/``enumerate`` the ``if`` parts ``ifs``
    (those between this loop and the next one in, as ``(ast.If, branch)``) let through, when
    the counter fixes it: ``if step == total // 2:`` once, ``if epoch in (30, 60, 90):`` three
    times, ``if step % (steps // 2) == 0:`` twice in ``range(steps)`` (a counter takes each
    value once; a value compared with must not change in the loop). None when unknown."""
    counter = _counter(module, loop.node)
    if counter is None:
        return None
    found = None
    for node, branch in ifs:
        if branch != "body":
            continue
        n = _passes(module, loop, counter, node.test)
        if n is not None:
            found = n if found is None else min(found, n)
    return found


def _counter(module, node) -> str | None:
    """The name a ``for`` loop counts with: ``i`` in ``for i in range(...)`` or ``for i, x in
    enumerate(...)``; None for any other loop."""
    it = _unwrapped(module, node.iter) if type(node) in (ast.For, ast.AsyncFor) else None
    if not isinstance(it, ast.Call):
        return None
    name = dotted_name(module, it.func)
    target = node.target
    if name in RANGES and isinstance(target, ast.Name):
        return target.id
    if name == "enumerate" and isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id
    return None


def _passes(module, loop, counter: str, test) -> int | None:
    if isinstance(test, ast.BoolOp):
        counts = [_passes(module, loop, counter, v) for v in test.values]
        if isinstance(test.op, ast.And):
            known = [n for n in counts if n is not None]
            return min(known) if known else None
        return sum(counts) if all(n is not None for n in counts) else None
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, ast.Eq):
        if _is_name(right, counter):
            left, right = right, left
        if _is_name(left, counter) and _fixed_in(module, loop, right):
            return 1
        if isinstance(left, ast.Constant):
            left, right = right, left
        if isinstance(right, ast.Constant) and type(right.value) is int and right.value == 0:
            return _fraction(module, loop, counter, left)
        return None
    if isinstance(op, ast.In) and _is_name(left, counter) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        return len(right.elts) if not any(isinstance(e, ast.Starred) for e in right.elts) else None
    return None


def _is_name(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _fixed_in(module, loop, expr) -> bool:
    """Whether ``expr`` reads no name the loop binds (its target, or any name assigned in it)."""
    names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    if not names:
        return True
    return not names & bound_in(module, loop) and not any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in ast.walk(expr))


def _fraction(module, loop, counter: str, expr) -> int | None:
    """``counter % (stop // k)`` (or ``% int(stop / k)``) in ``range(..., stop)``: k passes."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod) and _is_name(expr.left, counter)):
        return None
    period = expr.right
    if isinstance(period, ast.Call) and isinstance(period.func, ast.Name) and period.func.id == "int" and len(period.args) == 1:
        period = period.args[0]
        if not isinstance(period, ast.BinOp) or not isinstance(period.op, ast.Div):
            return None
    elif not isinstance(period, ast.BinOp) or not isinstance(period.op, ast.FloorDiv):
        return None
    k = period.right
    if not (isinstance(k, ast.Constant) and type(k.value) is int and k.value >= 1):
        return None
    it = _unwrapped(module, loop.node.iter)
    if dotted_name(module, it.func) not in RANGES or not it.args or not _fixed_in(module, loop, period.left):
        return None
    args = it.args
    stop = args[0] if len(args) == 1 else args[1]
    if isinstance(stop, ast.BinOp) and isinstance(stop.op, (ast.Add, ast.Sub)) and isinstance(stop.right, ast.Constant):
        stop = stop.left  # range(1, steps + 1)
    return k.value if ast.dump(stop) == ast.dump(period.left) else None


def runs_at_most(module, site, limit: int) -> bool:
    """Whether the source says the loops around a call site run it at most ``limit`` times (a
    runtime rule's threshold: the static form stays silent where the runtime would)."""
    n = times_run(module, site)
    return n is not None and n <= limit
