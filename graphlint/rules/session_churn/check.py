"""GL301's static form: sessions created again and again.

Reported: ``Session(...)`` in a loop (that the source does not bound below the runtime's
``max-per-site``), in a function that runs per call, and a function that makes a fresh
``tf.Graph()`` and a session for it each time it is called per item — from a loop that runs
another session (per batch), from a per-call method, or from any loop when each call does only
a few runs. A loop whose passes start from a fresh graph is reported the same way: when a pass
does only a few runs with its session (the model rebuilt, initialised or restored per pass).

Not reported: get-or-create (``if sess is None:``, ``if sess is None or sess.graph is not g:``,
``tf.get_default_session() or ...``), a session per object kept on that object or in a
collection, a sweep — a fresh graph and its session per pass or per call that does a whole run
(a loop of runs of its own, or the session handed to a function that may have one) — and a
graph per instance (``__init__``).
"""

from __future__ import annotations

import ast

from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model import project
from graphlint.static.model.repeats import bound_in, guarded, loop_count, per_call, runs_at_most
from graphlint.static.model.scopes import ONCE_METHODS, PER_CALL_METHODS
from graphlint.static.model.scopes import SESSION_GETTERS, SESSIONS
from graphlint.static.model.sessions import has_run_loop, is_session_run, runs_session

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphlint.static.model.module import Module
    from graphlint.static.model.scopes import CallSite, Function, Loop

_KEEPS = frozenset({"append", "extend", "add", "insert", "appendleft", "setdefault"})


def _is_session(call: CallSite) -> bool:
    name = call.name
    return name is not None and name.endswith("Session") and call.api in ("Session", "InteractiveSession") and (
        name.startswith("tensorflow.compat.v1.")
    )


def _statement_of(module: Module, call: CallSite) -> ast.stmt | None:
    """The ``ast`` statement directly holding a call (in its function or the module body)."""
    index = module.cache.get(("statement-of", id(call.scope)))
    if index is None:
        index = {}
        for stmt in ast.walk(call.scope.node if call.scope is not None else module.tree):
            if isinstance(stmt, ast.stmt):
                for child in ast.iter_child_nodes(stmt):
                    if isinstance(child, ast.expr):
                        for node in ast.walk(child):
                            if isinstance(node, ast.Call):
                                index.setdefault(id(node), stmt)
        module.cache[("statement-of", id(call.scope))] = index
    return index.get(id(call.node))


def _kept_or_shared(module: Module, call: CallSite) -> bool:
    """A session kept per object (``agent.sess = Session()``, ``sessions[k] = ...``,
    ``sessions.append(...)``) or only made when there is none (``... or Session()``)."""
    if call.parent is not None and getattr(call.parent.func, "attr", None) in _KEEPS:
        return True
    stmt = _statement_of(module, call)
    if stmt is None:
        return False
    for node in ast.walk(stmt):
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and any(v is call.node for v in node.values[1:]):
            return True
    if isinstance(stmt, ast.Assign) and stmt.value is call.node:
        for target in stmt.targets:
            if isinstance(target, ast.Subscript):
                return True
            if isinstance(target, ast.Attribute) and not (isinstance(target.value, ast.Name) and target.value.id == "self"):
                return True
    return False


def _own_graph(module: Module, call: CallSite) -> bool:
    """``Session(graph=g)`` with ``g`` made in this very iteration (``g = build_graph()``)."""
    keywords = call.node.keywords if isinstance(call.node, ast.Call) else []
    graph = next((kw.value for kw in keywords if kw.arg == "graph"), None)
    return isinstance(graph, ast.Name) and graph.id in bound_in(module, call.loops[-1])


def _runs_elsewhere(module: Module, loop: Loop) -> bool:
    return not loop.is_comprehension and any(is_session_run(module, c) for c in loop.calls)


def _whole_run_per_pass(module: Module, loop: Loop) -> bool:
    """Whether each pass of ``loop`` does a whole run (a training or an evaluation) with its
    session: a loop inside it that runs a session, a function of the file it calls that has
    one, or a session handed to a function whose work the file does not show. A trial of a
    sweep; not a model rebuilt for a few runs."""
    start, end = getattr(loop.node, "lineno", 0), getattr(loop.node, "end_lineno", None) or 0
    for inner in module.loops:
        if (
            inner is not loop and inner.scope is loop.scope and not inner.is_comprehension
            and start < getattr(inner.node, "lineno", 0) <= end
            and any(is_session_run(module, c) for c in inner.calls)
        ):
            return True
    return any(_runs_a_whole_run(module, c) for c in loop.calls)


def _runs_a_whole_run(module: Module, call: CallSite) -> bool:
    """A call of a function of the file with a run loop of its own, or of anything not
    TensorFlow's that is given a session (``train(sess, ...)``)."""
    if call.target is not None and has_run_loop(module, call.target):
        return True
    if call.name is not None and call.name.startswith(("tensorflow", "numpy", "builtins")):
        return False
    node = call.node
    if not isinstance(node, ast.Call) or call.method in ("run", "eval", "partial_run", "close", "as_default"):
        return False
    args = [*node.args, *(k.value for k in node.keywords)]
    return any(
        isinstance(a, ast.Name) and module.origins(a, call.scope) & (SESSIONS | SESSION_GETTERS) for a in args
    )


def _graph_per_item(module: Module, fn: Function, limit: int) -> tuple[str, CallSite | None] | None:
    """Why ``fn``, which makes its own graph and a session, runs per item: called in a loop
    that runs another session, or — when each call does only a few runs — in any loop past
    ``limit`` passes, or from a per-call method. ``(text, site)`` or None."""
    if fn.name in ONCE_METHODS or has_run_loop(module, fn):
        return None  # a graph per instance; a whole run per call (a sweep over models)
    if fn.is_method and fn.name in PER_CALL_METHODS:
        return "is a per-call method of a long-lived object", None
    few_runs = runs_session(module, fn) and not any(_runs_a_whole_run(module, c) for c in fn.calls)
    for site in fn.callers:
        if guarded(site.ifs):
            continue
        for loop in site.loops:
            if _runs_elsewhere(module, loop) and loop_count(module, loop) is None:
                return f"is called per item in a loop that runs a session (line {site.line})", site
        if few_runs and site.loops and not runs_at_most(module, site, limit):
            return f"is called in a loop (line {site.line}), each time for a few runs", site
        caller = site.scope
        if caller is not None and caller.is_method and caller.name in PER_CALL_METHODS:
            return f"is called from {caller.display} (line {site.line}), a per-call method", site
    return None


def check(module: Module, options: dict[str, Any]) -> list[Hit]:
    return list(once_per_line(session_churn(module, options)))


def session_churn(module: Module, options: dict) -> list[Hit]:
    """The sessions made again and again (see the module docstring)."""
    found = []
    for call in module.calls:
        if not _is_session(call) or guarded(call.ifs):
            continue
        fn = call.scope
        if call.loops:
            limit = options.get("max-per-site", 2)
            if runs_at_most(module, call, limit):
                continue
            fresh = [loop for loop in call.loops if project.loop_starts_fresh(module, loop)]
            if fresh and (
                any(_whole_run_per_pass(module, loop) for loop in fresh) or not _runs_elsewhere(module, fresh[-1])
                or _own_graph(module, call) or _kept_or_shared(module, call)
            ):
                continue  # a sweep: each pass a fresh graph, its own session, a whole run
            if fresh:
                found.append(Hit(
                    call.node,
                    "a new graph and a new Session are made on every iteration of this loop, each "
                    "for a few runs: the model is rebuilt, initialised or restored each time",
                    ((fresh[-1].node, "the loop"),),
                ))
                continue
            if _own_graph(module, call) or _kept_or_shared(module, call):
                continue
            found.append(Hit(call.node, "a new Session is created on every iteration of this loop"))
            continue
        if fn is None:
            continue
        if fn.resets_state():
            why = _graph_per_item(module, fn, options.get("max-per-site", 2))
            if why is not None and not _kept_or_shared(module, call):
                text, site = why
                related = ((site.node, "called here"),) if site is not None else ()
                found.append(
                    Hit(
                        call.node,
                        f"a new graph and a new Session are made each time {fn.display} runs; it {text}",
                        related,
                    )
                )
            continue
        reason = per_call(module, fn)
        if reason is not None and not _kept_or_shared(module, call):
            here: tuple[tuple[Any, str], ...] = ((reason.site.node, "called here"),) if reason.site else ()
            found.append(Hit(
                call.node, f"a new Session is created each time {fn.display} runs; it {reason.text}",
                here + reason.loop_sites(),
            ))
    return found
