"""Probes for TensorFlow's graph API: graphs, ops, variables, initializers (sessions and savers:
:mod:`graphlint.probes.tf_sessions`, mixed into :class:`GraphProbe`).

Each probe wraps one TensorFlow entry point, calls the original unchanged, and fires a
``graphlint_*`` hook with plain data (ids, names, user frames). It keeps only weak references
and integer ids, so graphs and sessions die when the program drops them.
"""

from __future__ import annotations

import itertools
import sys
import threading
import weakref
from sys import getrefcount
from typing import TYPE_CHECKING, Any, Callable

from graphlint.probes._base import Probe
from graphlint.probes.patching import unwound
from graphlint.probes.tf_sessions import SessionPatches, _SessionInfo
from graphlint.stacks import capture, capture_lazy, frame_of, is_user_file, user_site, user_site_from

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import FrameType

    from graphlint.dispatch import Hook, Hooks
    from graphlint.stacks import Stack

    #: what ``_variable_requested`` hands ``_variable_refused``: graph id, name, reuse, exists
    _Request = tuple[int, str | None, object, bool]

# pytest leaves the frames of these wrappers out of a failing test's traceback.
__tracebackhide__ = True


class _GraphInfo:
    __slots__ = ("gid", "kind", "ref", "init_ops")

    def __init__(self, gid: int, kind: str, ref: weakref.ref[Any]) -> None:
        self.gid = gid
        self.kind = kind
        self.ref = ref
        self.init_ops: set[str] = set()


class GraphProbe(SessionPatches, Probe):
    """Installs the TF1 graph probes; they fire hooks on ``hook`` until :meth:`uninstall`."""

    name = "tf-graph"

    def __init__(self, hook: Hooks, warn: Callable[[str], None] | None = None) -> None:
        super().__init__(hook, warn)
        self._graphs: dict[int, _GraphInfo] = {}
        self._sessions: dict[int, _SessionInfo] = {}
        self._gids = itertools.count(1)
        self._sids = itertools.count(1)
        self._lock = threading.Lock()

    # -- bookkeeping -----------------------------------------------------------------------
    def graph_info(self, graph: Any) -> _GraphInfo:
        """Our record of ``graph``, registering it (and firing graph_created) on first sight."""
        info = self._graphs.get(id(graph))
        if info is not None and info.ref() is graph:
            return info
        with self._lock:
            info = self._graphs.get(id(graph))
            if info is not None and info.ref() is graph:
                return info
            kind = "function" if self._func_graph and isinstance(graph, self._func_graph) else "graph"
            info = _GraphInfo(next(self._gids), kind, weakref.ref(graph))
            self._graphs[id(graph)] = info
        fin = weakref.finalize(graph, self._graph_released, id(graph), info.gid)
        fin.atexit = False
        self._fire(
            self.hook.graphlint_graph_created,
            graph=graph,
            graph_id=info.gid,
            kind=kind,
            site=user_site(2),
        )
        return info

    def fire_about(self, hook: Hook, graph: Any, **kwargs: Any) -> None:
        """Fire ``hook`` about ``graph`` (registered on first sight): with the graph and its id."""
        self._fire(hook, graph=graph, graph_id=self.graph_info(graph).gid, **kwargs)

    def _graph_released(self, key: int, gid: int) -> None:
        info = self._graphs.get(key)
        if info is not None and info.gid == gid:
            del self._graphs[key]
        self._fire_release(self.hook.graphlint_graph_released, graph_id=gid)

    # -- install / uninstall ---------------------------------------------------------------
    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        from tensorflow.python.framework import ops

        try:
            from tensorflow.python.framework.func_graph import FuncGraph
        except ImportError:  # pragma: no cover
            FuncGraph = None
        self._func_graph = FuncGraph
        self._ops = ops
        return [
            ("op creation", self._patch_ops),
            ("`with graph:`", self._patch_graph_enter),
            ("variable creation", self._patch_variables),
            ("get_variable", self._patch_variable_store),
            ("initializers", self._patch_initializers),
            ("sessions", self._patch_sessions),
            ("checkpoint restore", self._patch_saver),
        ]

    def forget(self) -> None:
        self._graphs.clear()
        self._sessions.clear()

    # -- graphs and ops --------------------------------------------------------------------
    def _patch_ops(self) -> None:
        probe = self
        Graph = self._ops.Graph

        hook = self.hook.graphlint_op_added
        local = self._local
        graphs = self._graphs
        deferred = self._deferred

        # Runs once per op: what _fire does, inlined, the values given in the spec's order (no
        # dictionary per op), and no stack walk when no rule listens to op_added.
        def emit(graph: Any, op: Any, inputs: Sequence[Any] | None) -> None:
            if not probe.active or getattr(local, "busy", False):
                return
            info = graphs.get(id(graph))
            if info is None or info.ref() is not graph:
                info = probe.graph_info(graph)
            if not hook.listeners:
                return
            stack = capture_lazy(2)
            local.busy = True
            try:
                # the spec's arguments in its order: graph, graph_id, graph_kind, op, inputs,
                # index, stack, site (tests/runtime/test_probes.py checks it)
                hook.deliver((graph, info.gid, info.kind, op, inputs, graph.version, stack, stack.site))
            except Exception as exc:  # the probe's bug, said once
                probe.internal(exc, hook.name)
            finally:
                local.busy = False
                # A rule that kept the stack gets it whole; nobody keeps the live frame.
                if getrefcount(stack) > 2:
                    stack.materialize()
                stack.release()
            if deferred:
                probe._drain()

        # Ops built from Python: the input tensors are at hand (reading op.inputs would
        # make TensorFlow build that tuple, the most expensive part of watching an op).
        def wrap_internal(original: Callable[..., Any]) -> Callable[..., Any]:
            def _create_op_internal(self: Any, op_type: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    op = original(self, op_type, inputs, *args, **kwargs)
                    emit(self, op, inputs)
                    return op
                except BaseException as exc:
                    unwound(exc)
                    raise

            return _create_op_internal

        # Ops made by the C API (import_graph_def, while loops): inputs are read from the op.
        def wrap_from_c(original: Callable[..., Any]) -> Callable[..., Any]:
            def _create_op_from_tf_operation(self: Any, c_op: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    op = original(self, c_op, *args, **kwargs)
                    emit(self, op, None)
                    return op
                except BaseException as exc:
                    unwound(exc)
                    raise

            return _create_op_from_tf_operation

        self.patcher.patch(Graph, "_create_op_internal", wrap_internal)
        self.patcher.patch(Graph, "_create_op_from_tf_operation", wrap_from_c)

    def _patch_graph_enter(self) -> None:
        probe = self

        def wrap(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
            def __enter__(self: Any) -> Any:
                try:
                    caller = sys._getframe(1)
                    if is_user_file(caller.f_code.co_filename):  # TensorFlow's own `with graph:` is not the user's
                        probe.guarded("`with graph:`", probe._graph_entered, self, caller)
                    return original(self)
                except BaseException as exc:
                    unwound(exc)
                    raise

            return __enter__

        self.patcher.patch(self._ops.Graph, "__enter__", wrap)

    def _graph_entered(self, graph: Any, caller: FrameType) -> None:
        self.fire_about(self.hook.graphlint_graph_entered, graph, site=frame_of(caller))

    # -- variables -------------------------------------------------------------------------
    def _variable_created(self, var: Any, requested: str | None) -> None:
        from tensorflow.python.eager import context

        if context.executing_eagerly():
            return
        try:
            name = var.op.name
        except (AttributeError, ValueError):
            name = getattr(var, "name", "").split(":")[0]
        stack = capture(3)
        via = "get_variable" if getattr(self._local, "in_store", 0) else "Variable"
        self.fire_about(
            self.hook.graphlint_variable_created,
            self._ops.get_default_graph(),
            name=name,
            requested_name=requested,
            via=via,
            site=stack.site,
            stack=stack,
        )

    def _patch_variables(self) -> None:
        from tensorflow.python.ops import variable_v1, variables

        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def creator(next_creator: Any = None, **kwargs: Any) -> Any:
                try:
                    var = original(next_creator, **kwargs)
                    if not getattr(probe._local, "busy", False):
                        probe.guarded("variable created", probe._variable_created, var, kwargs.get("name"))
                    return var
                except BaseException as exc:
                    unwound(exc)
                    raise

            return creator

        self.patcher.patch(variable_v1, "default_variable_creator", wrap)
        self.patcher.patch(variables, "default_variable_creator_v2", wrap)

    def _patch_variable_store(self) -> None:
        import inspect

        from tensorflow.python.ops import variable_scope

        probe = self
        store = variable_scope._VariableStore
        signature = inspect.signature(store._get_single_variable)

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def _get_single_variable(self: Any, *args: Any, **kwargs: Any) -> Any:
                local = probe._local
                request = None
                try:
                    stack = capture(1)
                    request = probe.guarded("get_variable", probe._variable_requested, self, args, kwargs, stack)
                    local.in_store = getattr(local, "in_store", 0) + 1
                    try:
                        return original(self, *args, **kwargs)
                    finally:
                        local.in_store -= 1
                except BaseException as exc:
                    if request is not None and isinstance(exc, ValueError):
                        probe.guarded("get_variable", probe._variable_refused, request, exc, stack)
                    unwound(exc)
                    raise

            return _get_single_variable

        self._store_signature = signature
        self.patcher.patch(store, "_get_single_variable", wrap)

    def _variable_requested(self, store: Any, args: tuple[Any, ...], kwargs: dict[str, Any], stack: Stack) -> _Request:
        """Fire ``graphlint_variable_requested``; (graph id, name, reuse, whether it exists)."""
        bound = self._store_signature.bind(store, *args, **kwargs)
        name = bound.arguments.get("name")
        reuse = bound.arguments.get("reuse")
        exists = name in store._vars
        gid = self.graph_info(self._ops.get_default_graph()).gid
        self._fire(self.hook.graphlint_variable_requested, graph_id=gid, name=name, reuse=reuse, site=stack.site)
        return gid, name, reuse, exists

    def _variable_refused(self, request: _Request, exc: ValueError, stack: Stack) -> None:
        gid, name, reuse, exists = request
        if exists and reuse is False:
            reason = "exists"
        elif not exists and reuse is True:
            reason = "missing"
        else:
            return
        self._fire(
            self.hook.graphlint_variable_refused,
            graph_id=gid,
            name=name,
            reason=reason,
            error=(str(exc).splitlines() or [""])[0],
            site=stack.site,
            stack=stack,
        )

    def _patch_initializers(self) -> None:
        from tensorflow.python.ops import variables

        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def variables_initializer(var_list: Any, name: Any = "init") -> Any:
                try:
                    init = original(var_list, name=name)
                    probe.guarded("variables initializer", probe._initializer_built, init, var_list, sys._getframe(1))
                    return init
                except BaseException as exc:
                    unwound(exc)
                    raise

            return variables_initializer

        original = variables.variables_initializer
        self.patcher.patch(variables, "variables_initializer", wrap)
        # The public aliases are the same function object, bound at import time.
        replacement = variables.variables_initializer
        import tensorflow as tf

        for module in (tf.compat.v1, getattr(tf.compat.v1, "initializers", None)):
            if module is None:
                continue
            for attr in ("variables_initializer", "variables"):
                if getattr(module, attr, None) is original:
                    self.patcher.patch(module, attr, lambda _orig: replacement)

    def _initializer_built(self, init: Any, var_list: Any, caller: FrameType) -> None:
        if self._ops.executing_eagerly_outside_functions():
            return
        info = self.graph_info(init.graph)
        info.init_ops.add(init.name)
        self._fire(
            self.hook.graphlint_initializer_built,
            graph_id=info.gid,
            name=init.name,
            variables=[v.op.name for v in var_list],
            site=user_site_from(caller),
        )

    # -- sessions --------------------------------------------------------------------------
