"""Sessions in the source: which calls run one (:func:`is_session_run`), which functions run
one directly (:func:`runs_session`) or in a loop of their own (:func:`has_run_loop`: a whole
training or evaluation run)."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from graphlint.static.model.api import builds_ops, is_train_op
from graphlint.static.model.scopes import SESSION_GETTERS, SESSIONS, CallSite, Function

if TYPE_CHECKING:
    from graphlint.static.model.module import Module

_SESSION_NAME = re.compile(r"^_*(?:\w+_)?sess(?:ion)?\d*(?:_\w+)?$", re.I)


def is_session_run(module: Module, call: CallSite) -> bool:
    """``sess.run(...)`` on something that is a session (by origin, or by its very name);
    ``tensor.eval(...)`` and ``op.run(...)`` run one too: with a feed dict or a session, or
    on something made by a TensorFlow op (``accuracy.eval()``, ``tf.nn.softmax(y).eval()``)."""
    if call.method not in ("run", "eval", "partial_run"):
        return False
    key = ("session-run", id(call.node))
    found = module.cache.get(key)
    if found is None:
        found = module.cache[key] = _is_session_run(module, call)
    return found


def _is_session_run(module: Module, call: CallSite) -> bool:
    if call.method in ("eval", "run") and isinstance(call.node, ast.Call):
        node = call.node
        if any(kw.arg in ("feed_dict", "session") for kw in node.keywords) or (
            node.args and isinstance(node.args[0], ast.Dict)
        ):
            return True
        receiver = call.receiver
        if isinstance(receiver, ast.Call):
            if builds_ops(module.bindings.resolve(receiver.func)):
                return True
        elif receiver is not None and (call.method == "eval" or not node.args):
            labels = module.origins(receiver, call.scope)
            if labels and all(builds_ops(label) or is_train_op(label) for label in labels):
                return True
    if call.method not in ("run", "partial_run"):
        return False
    receiver = call.receiver
    if isinstance(receiver, ast.Call):
        name = module.bindings.resolve(receiver.func)
        return name in SESSIONS or name in SESSION_GETTERS
    origins = module.origins(receiver, call.scope)
    if origins & SESSIONS or origins & SESSION_GETTERS:
        return True
    if origins != {"?"}:
        return False
    ident = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    return bool(_SESSION_NAME.match(ident))


def has_run_loop(module: Module, fn: Function) -> bool:
    """Whether ``fn`` has a loop of its own that runs a session: a whole run (a training or an
    evaluation), so the loop that calls it is a sweep of runs, not a run loop."""
    found = module.cache.get("run-loop-scopes")
    if found is None:  # once per module: the functions with such a loop
        found = module.cache["run-loop-scopes"] = {
            id(loop.scope) for loop in module.loops
            if loop.scope is not None and not loop.is_comprehension and any(is_session_run(module, c) for c in loop.calls)
        }
    return id(fn) in found


def runs_session(module: Module, fn: Function) -> bool:
    """Whether a call directly in ``fn`` runs a session."""
    found = module.cache.get("session-scopes")
    if found is None:  # once per module: the functions with such a call
        found = module.cache["session-scopes"] = {
            id(c.scope) for c in module.calls if c.scope is not None and is_session_run(module, c)
        }
    return id(fn) in found
