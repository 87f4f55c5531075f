"""Probes for TensorFlow's graph API: graphs, ops, variables, initializers, sessions, savers.

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
from typing import Callable

from graphlint.probes._base import Probe
from graphlint.stacks import capture, capture_lazy, is_user_file, user_site

# pytest leaves the frames of these wrappers out of a failing test's traceback.
__tracebackhide__ = True

# Distinct run signatures remembered per session (as hashes). Past this many the session is
# saturated: later combinations are no longer reported as new (never counted twice).
_SIGNATURES_PER_SESSION = 100_000


class _GraphInfo:
    __slots__ = ("gid", "kind", "ref", "init_ops")

    def __init__(self, gid, kind, ref):
        self.gid = gid
        self.kind = kind
        self.ref = ref
        self.init_ops: set[str] = set()


class _SessionInfo:
    __slots__ = ("sid", "gid", "site", "runs", "signatures", "version", "closed", "ref")

    def __init__(self, sid, gid, site, ref):
        self.sid = sid
        self.gid = gid
        self.site = site
        self.runs = 0
        self.signatures: set = set()
        self.version = None
        self.closed = False
        self.ref = ref


def _signature(fetches, feed_dict) -> tuple:
    return (_fetch_key(fetches), _feed_key(feed_dict))


def _fetch_key(obj):
    kind = type(obj)
    if kind is list or kind is tuple:
        return tuple([_fetch_key(item) for item in obj])
    if kind is dict:
        return tuple(sorted((repr(k), _fetch_key(v)) for k, v in obj.items()))
    if kind is str:
        return obj
    return id(obj)


def _feed_key(feed):
    if not feed:
        return ()
    return frozenset(k if type(k) is str else id(k) for k in feed)


def _names(fetches) -> list[str]:
    """Op names of a fetch structure (only for the rare new-signature path)."""
    out = []
    stack = [fetches]
    while stack:
        obj = stack.pop()
        if isinstance(obj, (list, tuple)):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, str):
            out.append(obj.split(":")[0].lstrip("^"))
        else:
            op = getattr(obj, "op", obj)
            name = getattr(op, "name", None)
            if isinstance(name, str):
                out.append(name)
    return out


class GraphProbe(Probe):
    """Installs the TF1 graph probes; they fire hooks on ``hook`` until :meth:`uninstall`."""

    name = "tf-graph"

    def __init__(self, hook, warn: Callable[[str], None] | None = None):
        super().__init__(hook, warn)
        self._graphs: dict[int, _GraphInfo] = {}
        self._sessions: dict[int, _SessionInfo] = {}
        self._gids = itertools.count(1)
        self._sids = itertools.count(1)
        self._lock = threading.Lock()

    # -- bookkeeping -----------------------------------------------------------------------
    def graph_info(self, graph) -> _GraphInfo:
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

    def _graph_released(self, key, gid):
        info = self._graphs.get(key)
        if info is not None and info.gid == gid:
            del self._graphs[key]
        self._fire_release(self.hook.graphlint_graph_released, graph_id=gid)

    # -- install / uninstall ---------------------------------------------------------------
    def steps(self):
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
    def _patch_ops(self):
        probe = self
        Graph = self._ops.Graph

        hook = self.hook.graphlint_op_added
        fast = self.fast_hook(hook)
        plan_of = getattr(fast, "plan", None)
        local = self._local
        graphs = self._graphs
        deferred = self._deferred

        # Runs once per op: what _fire does, inlined, and no stack walk when no rule listens
        # to op_added (_fire's effect would be nil).
        def emit(graph, op, inputs):
            if not probe.active or getattr(local, "busy", False):
                return
            info = graphs.get(id(graph))
            if info is None or info.ref() is not graph:
                info = probe.graph_info(graph)
            plan = plan_of() if plan_of is not None else None
            if plan == ():
                return
            stack = capture_lazy(2)
            kwargs = {
                "graph": graph,
                "graph_id": info.gid,
                "graph_kind": info.kind,
                "op": op,
                "inputs": inputs,
                "index": graph.version,
                "stack": stack,
                "site": stack.site,
            }
            local.busy = True
            try:
                if plan is None:
                    fast(**kwargs)
                else:
                    for function, argnames in plan:
                        function(*[kwargs[name] for name in argnames])
            except Exception as exc:  # pragma: no cover - rules are isolated; a last guard
                probe.warn(f"graphlint: internal error in {hook.name}: {type(exc).__name__}: {exc}")
            finally:
                local.busy = False
                del kwargs
                # A rule that kept the stack gets it whole; nobody keeps the live frame.
                if getrefcount(stack) > 2:
                    stack.materialize()
                stack.release()
            if deferred:
                probe._drain()

        # Ops built from Python: the input tensors are at hand (reading op.inputs would
        # make TensorFlow build that tuple, the most expensive part of watching an op).
        def wrap_internal(original):
            def _create_op_internal(self, op_type, inputs, *args, **kwargs):
                op = original(self, op_type, inputs, *args, **kwargs)
                emit(self, op, inputs)
                return op

            return _create_op_internal

        # Ops made by the C API (import_graph_def, while loops): inputs are read from the op.
        def wrap_from_c(original):
            def _create_op_from_tf_operation(self, c_op, *args, **kwargs):
                op = original(self, c_op, *args, **kwargs)
                emit(self, op, None)
                return op

            return _create_op_from_tf_operation

        self.patcher.patch(Graph, "_create_op_internal", wrap_internal)
        self.patcher.patch(Graph, "_create_op_from_tf_operation", wrap_from_c)

    def _patch_graph_enter(self):
        probe = self

        def wrap(original):
            def __enter__(self):
                caller = sys._getframe(1).f_code.co_filename
                if not is_user_file(caller):  # TensorFlow's own `with graph:` is not the user's
                    return original(self)
                info = probe.graph_info(self)
                probe._fire(
                    probe.hook.graphlint_graph_entered,
                    graph=self,
                    graph_id=info.gid,
                    site=user_site(1),
                )
                return original(self)

            return __enter__

        self.patcher.patch(self._ops.Graph, "__enter__", wrap)

    # -- variables -------------------------------------------------------------------------
    def _variable_created(self, var, requested):
        from tensorflow.python.eager import context

        if context.executing_eagerly():
            return
        graph = self._ops.get_default_graph()
        info = self.graph_info(graph)
        try:
            name = var.op.name
        except (AttributeError, ValueError):
            name = getattr(var, "name", "").split(":")[0]
        stack = capture(3)
        via = "get_variable" if getattr(self._local, "in_store", 0) else "Variable"
        self._fire(
            self.hook.graphlint_variable_created,
            graph=graph,
            graph_id=info.gid,
            name=name,
            requested_name=requested,
            via=via,
            site=stack.site,
            stack=stack,
        )

    def _patch_variables(self):
        from tensorflow.python.ops import variable_v1, variables

        probe = self

        def wrap(original):
            def creator(next_creator=None, **kwargs):
                var = original(next_creator, **kwargs)
                if not getattr(probe._local, "busy", False):
                    probe._variable_created(var, kwargs.get("name"))
                return var

            return creator

        self.patcher.patch(variable_v1, "default_variable_creator", wrap)
        self.patcher.patch(variables, "default_variable_creator_v2", wrap)

    def _patch_variable_store(self):
        import inspect

        from tensorflow.python.ops import variable_scope

        probe = self
        store = variable_scope._VariableStore
        signature = inspect.signature(store._get_single_variable)

        def wrap(original):
            def _get_single_variable(self, *args, **kwargs):
                bound = signature.bind(self, *args, **kwargs)
                name = bound.arguments.get("name")
                reuse = bound.arguments.get("reuse")
                exists = name in self._vars
                graph = probe._ops.get_default_graph()
                gid = probe.graph_info(graph).gid
                stack = capture(1)
                site = stack.site
                probe._fire(
                    probe.hook.graphlint_variable_requested,
                    graph_id=gid,
                    name=name,
                    reuse=reuse,
                    site=site,
                )
                local = probe._local
                local.in_store = getattr(local, "in_store", 0) + 1
                try:
                    return original(self, *args, **kwargs)
                except ValueError as exc:
                    reason = None
                    if exists and reuse is False:
                        reason = "exists"
                    elif not exists and reuse is True:
                        reason = "missing"
                    if reason:
                        probe._fire(
                            probe.hook.graphlint_variable_refused,
                            graph_id=gid,
                            name=name,
                            reason=reason,
                            error=str(exc).splitlines()[0],
                            site=site,
                            stack=stack,
                        )
                    raise
                finally:
                    local.in_store -= 1

            return _get_single_variable

        self.patcher.patch(store, "_get_single_variable", wrap)

    def _patch_initializers(self):
        from tensorflow.python.ops import variables

        probe = self

        def wrap(original):
            def variables_initializer(var_list, name="init"):
                init = original(var_list, name=name)
                try:
                    if not probe._ops.executing_eagerly_outside_functions():
                        info = probe.graph_info(init.graph)
                        info.init_ops.add(init.name)
                        probe._fire(
                            probe.hook.graphlint_initializer_built,
                            graph_id=info.gid,
                            name=init.name,
                            variables=[v.op.name for v in var_list],
                            site=user_site(1),
                        )
                except Exception as exc:  # never break the program; said once
                    probe.internal(exc, "variables initializer")
                return init

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

    # -- sessions --------------------------------------------------------------------------
    def _patch_sessions(self):
        from tensorflow.python.client import session as session_lib

        probe = self
        Base = session_lib.BaseSession
        del_code = Base.__del__.__code__

        def wrap_init(original):
            def __init__(self, target="", graph=None, config=None):
                original(self, target, graph, config)
                try:
                    probe._session_created(self)
                except Exception as exc:  # never break the program; said once
                    probe.internal(exc, "session created")

            return __init__

        def wrap_run(original):
            def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
                info = probe._sessions.get(id(self))
                if info is not None and info.ref() is self:
                    probe._session_run(self, info, fetches, feed_dict)
                return original(self, fetches, feed_dict, options, run_metadata)

            return run

        def wrap_close(original):
            def close(self):
                info = probe._sessions.get(id(self))
                if (
                    info is not None
                    and not info.closed
                    and info.ref() is self
                    and sys._getframe(1).f_code is not del_code
                ):
                    info.closed = True
                    probe._fire(
                        probe.hook.graphlint_session_closed,
                        session_id=info.sid,
                        graph_id=info.gid,
                        site=user_site(1),
                        runs=info.runs,
                    )
                return original(self)

            return close

        self.patcher.patch(Base, "__init__", wrap_init)
        self.patcher.patch(Base, "run", wrap_run)
        self.patcher.patch(Base, "close", wrap_close)

    def _session_created(self, session):
        graph = session.graph
        ginfo = self.graph_info(graph)
        site = user_site(3)
        info = _SessionInfo(next(self._sids), ginfo.gid, site, weakref.ref(session))
        self._sessions[id(session)] = info
        fin = weakref.finalize(session, self._session_released, id(session), info)
        fin.atexit = False
        self._fire(
            self.hook.graphlint_session_created,
            session_id=info.sid,
            graph_id=ginfo.gid,
            site=site,
        )

    def _session_released(self, key, info):
        if self._sessions.get(key) is info:
            del self._sessions[key]
        self._fire_release(
            self.hook.graphlint_session_released,
            session_id=info.sid,
            graph_id=info.gid,
            closed=info.closed,
            created_site=info.site,
        )

    def _session_run(self, session, info, fetches, feed_dict):
        info.runs += 1
        try:
            signature = _signature(fetches, feed_dict)
            version = session.graph.version
        except Exception:  # unhashable or exotic fetches: let TensorFlow judge them
            return
        key = hash(signature)
        signatures = info.signatures
        new = key not in signatures and len(signatures) < _SIGNATURES_PER_SESSION
        added = 0 if info.version is None else version - info.version
        info.version = version
        if not new and not added:
            return
        if new:
            signatures.add(key)
        site = user_site(2)
        self._fire(
            self.hook.graphlint_session_run,
            session_id=info.sid,
            graph_id=info.gid,
            site=site,
            signature=signature,
            new_signature=new,
            ops_added=added,
            runs=info.runs,
            fetches=fetches,
            feed_dict=feed_dict,
        )
        if new:
            ginfo = self._graphs.get(id(session.graph))
            if ginfo is not None and ginfo.init_ops:
                for name in _names(fetches):
                    if name in ginfo.init_ops:
                        self._fire(
                            self.hook.graphlint_initializer_run,
                            graph_id=ginfo.gid,
                            name=name,
                            session_id=info.sid,
                            site=site,
                        )

    # -- checkpoints -----------------------------------------------------------------------
    def _patch_saver(self):
        from tensorflow.python.training import saver as saver_lib

        probe = self

        def wrap(original):
            def restore(self, sess, save_path):
                try:
                    probe._restore(self, sess, save_path)
                except Exception as exc:  # never break the program; said once
                    probe.internal(exc, "restore")
                return original(self, sess, save_path)

            return restore

        self.patcher.patch(saver_lib.Saver, "restore", wrap)

    def _restore(self, saver, sess, save_path):
        from tensorflow.python.training import checkpoint_utils
        from tensorflow.python.training.saving import saveable_object_util

        if sess is None or save_path is None:
            return
        var_list = saver._var_list
        if var_list is None:  # import_meta_graph's Saver: only its SaverDef names its variables
            saver_names = _saver_def_names(sess.graph, saver.saver_def)
            if not saver_names:
                return
        elif isinstance(var_list, dict):
            saver_names = sorted(var_list)
        else:
            saver_names = sorted(saveable_object_util.op_list_to_dict(var_list))
        try:
            checkpoint_names = sorted(name for name, _ in checkpoint_utils.list_variables(save_path))
        except Exception:
            return  # no readable checkpoint: TensorFlow's own error says so
        graph = sess.graph
        info = self.graph_info(graph)
        self._fire(
            self.hook.graphlint_checkpoint_restore,
            graph=graph,
            graph_id=info.gid,
            saver_names=saver_names,
            checkpoint_names=checkpoint_names,
            save_path=save_path,
            site=user_site(2),
        )


def _saver_def_names(graph, saver_def) -> list[str]:
    """The checkpoint keys a Saver rebuilt from a SaverDef restores: the ``tensor_names``
    constants of its RestoreV2 ops (the saver's name scope)."""
    from tensorflow.python.framework import tensor_util

    if saver_def is None or not saver_def.restore_op_name:
        return []
    scope = saver_def.restore_op_name.rsplit("/", 1)[0] + "/"
    names: set[str] = set()
    for op in graph.get_operations():
        if op.type in ("RestoreV2", "Restore", "RestoreSlice") and op.name.startswith(scope):
            source = op.inputs[1].op
            if source.type == "Const":
                values = tensor_util.MakeNdarray(source.get_attr("value")).ravel()
                names.update(v.decode() if isinstance(v, bytes) else str(v) for v in values)
    return sorted(names)
