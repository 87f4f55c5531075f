"""The questions static rules ask of a :class:`graphlint.static.module.Module`: is this call a
session run, why does this function run again and again, which callers share a graph. The
heuristics live here; the model they read is :mod:`graphlint.static.module`.
"""

from __future__ import annotations

import ast

from graphlint.static.model.scopes import (
    _SESSION_NAME,
    ONCE_METHODS,
    PER_CALL_METHODS,
    SESSION_GETTERS,
    SESSIONS,
    CallSite,
    Function,
    Reason,
    _train_op,
    guarded,
)
from graphlint.static.model.api import builds_ops


class ModuleQuestions:
    """Mixed into :class:`graphlint.static.module.Module` (reads its calls, bindings, origins)."""

    def is_session_run(self, call: CallSite) -> bool:
        """``sess.run(...)`` on something that is a session (by origin, or by its very name);
        ``tensor.eval(...)`` and ``op.run(...)`` run one too: with a feed dict or a session, or
        on something made by a TensorFlow op (``accuracy.eval()``, ``tf.nn.softmax(y).eval()``)."""
        if call.method not in ("run", "eval", "partial_run"):
            return False
        key = ("session-run", id(call.node))
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = self._is_session_run(call)
        return found

    def _is_session_run(self, call: CallSite) -> bool:
        if call.method in ("eval", "run") and isinstance(call.node, ast.Call):
            node = call.node
            if any(kw.arg in ("feed_dict", "session") for kw in node.keywords) or (
                node.args and isinstance(node.args[0], ast.Dict)
            ):
                return True
            receiver = call.receiver
            if isinstance(receiver, ast.Call):
                if builds_ops(self.bindings.resolve(receiver.func)):
                    return True
            elif receiver is not None and (call.method == "eval" or not node.args):
                labels = self.origins(receiver, call.scope)
                if labels and all(builds_ops(label) or _train_op(label) for label in labels):
                    return True
        if call.method not in ("run", "partial_run"):
            return False
        receiver = call.receiver
        if isinstance(receiver, ast.Call):
            name = self.bindings.resolve(receiver.func)
            return name in SESSIONS or name in SESSION_GETTERS
        origins = self.origins(receiver, call.scope)
        if origins & SESSIONS or origins & SESSION_GETTERS:
            return True
        if origins != {"?"}:
            return False
        ident = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
        return bool(_SESSION_NAME.match(ident))

    def isolated(self, site: CallSite) -> bool:
        """A call made under its own default graph, or in a loop that starts afresh each time."""
        return site.under_graph_default() or any(loop.resets_state() for loop in site.loops)

    def per_call(self, fn: Function) -> Reason | None:
        """Why ``fn`` runs again and again (a per-call method, called in a loop or from one)."""
        key = id(fn)
        if key in self._per_call:
            return self._per_call[key]
        self._per_call[key] = None  # recursion guard
        reason = None
        if fn.name in ONCE_METHODS:
            pass
        elif fn.is_method and fn.name in PER_CALL_METHODS:
            reason = Reason("is a per-call method of a long-lived object")
        elif _serves_requests(fn):
            reason = Reason("serves a web request (`@app.route`, `@router.get`...): it runs once per request")
        elif id(fn) in self._thread_targets():
            site = self._thread_targets()[id(fn)]
            reason = Reason(f"runs in a thread started in a loop (line {site.line})", site)
        else:
            for site in fn.callers:
                if self.isolated(site) or guarded(site.ifs):
                    continue  # its own graph; or get-or-create: made once
                if site.loops:
                    reason = Reason(f"is called in a loop (line {site.line})", site)
                    break
                if site.scope is not None and site.scope is not fn and self.per_call(site.scope):
                    reason = Reason(f"is called from {site.scope.display} (line {site.line}), which runs per call", site)
                    break
        self._per_call[key] = reason
        return reason

    def _thread_targets(self) -> dict:
        """The functions a loop starts a thread or process on (``Thread(target=self.handle)``
        per accepted connection): ``{id(function): the call that starts it}``. Once per file."""
        found = self.cache.get("thread-targets")
        if found is None:
            found = self.cache["thread-targets"] = {}
            for site in self.calls:
                if site.name not in _SPAWNERS or not site.loops or guarded(site.ifs):
                    continue
                target = next((k.value for k in site.node.keywords if k.arg == "target"), None)
                fn = None
                if isinstance(target, ast.Name):
                    scope = site.scope
                    while scope is not None and fn is None:
                        fn = scope.children.get(target.id)
                        scope = scope.parent
                    fn = fn or self.module_functions.get(target.id)
                elif (
                    isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id == "self" and site.cls is not None
                ):
                    fn = site.cls.methods.get(target.attr)
                if fn is not None:
                    found.setdefault(id(fn), site)
        return found

    def repeated_callers(self, fn: Function) -> list[CallSite]:
        """The call sites of ``fn`` that build into a shared graph."""
        return [s for s in fn.callers if not self.isolated(s)]


#: What starts a function in a thread or a process of its own.
_SPAWNERS = frozenset({"threading.Thread", "multiprocessing.Process", "threading.Timer"})
#: The decorators that make a function a web handler: Flask's ``@app.route``, FastAPI's and
#: Starlette's ``@app.get`` / ``@router.post``..., Sanic's and Quart's alike.
_ROUTES = frozenset({"route", "get", "post", "put", "patch", "delete", "api_route", "websocket"})


def _serves_requests(fn: Function) -> bool:
    """Whether ``fn`` is registered as a web handler (``@app.route("/")``): called per request."""
    for dec in fn.node.decorator_list:
        if (
            isinstance(dec, ast.Call)
            and isinstance(dec.func, ast.Attribute)
            and dec.func.attr in _ROUTES
            and isinstance(dec.func.value, (ast.Name, ast.Attribute))
            and dec.args
            and isinstance(dec.args[0], ast.Constant)
            and isinstance(dec.args[0].value, str)
        ):
            return True
    return False
