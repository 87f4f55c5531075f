"""Ops built inside the loop that runs a session (GL102)."""

from __future__ import annotations

import ast

from graphlint.static.hits import Hit
from graphlint.static.tfapi import builds_ops, is_minimize


def first_time_guard(test) -> bool:
    """``if step == 0:``, ``if op is None:``, ``if not built:`` — built once, not every step."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    if isinstance(test, ast.Compare) and any(isinstance(op, (ast.Eq, ast.Is)) for op in test.ops):
        periodic = isinstance(test.left, ast.BinOp) and isinstance(test.left.op, ast.Mod)
        return not periodic
    return False


def ops_in_run_loops(module) -> list:
    """The op-building calls in loops whose body runs a session."""
    found, seen = [], set()
    for loop in module.loops:
        if loop.resets_state() or not any(module.is_session_run(c) for c in loop.calls):
            continue
        for call in loop.calls:
            if id(call.node) in seen or not (builds_ops(call.name) or is_minimize(module, call)):
                continue
            if any(w.is_as_default for w in loop.inner_withs(call)):
                continue  # built into a graph of this iteration's own
            if any(first_time_guard(node.test) for node, _ in loop.inner_ifs(call)):
                continue
            seen.add(id(call.node))
            found.append(call)
    return found


def op_in_run_loop(module, options: dict) -> list[Hit]:
    """GL102's static form."""
    return [
        Hit(call.node, f"`{call.api}()` adds ops to the graph on every step of a loop that runs a session")
        for call in ops_in_run_loops(module)
    ]
