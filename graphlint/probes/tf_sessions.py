"""Probes for TensorFlow 1 sessions and savers: ``Session.__init__``/``run``/``close``, a
session's release, ``Saver.restore``. Mixed into :class:`graphlint.probes.tf_graph.GraphProbe`,
whose graph bookkeeping (``graph_info``, ``_graphs``) they read.

A run fires ``graphlint_session_run`` only when it differs from all before it (a new
fetch/feed signature, or the graph grew); identical runs are only counted.
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterator

from graphlint.dispatch import Hooks
from graphlint.probes.patching import Patcher, unwound
from graphlint.stacks import user_site, user_site_from

if TYPE_CHECKING:
    from collections.abc import Hashable
    from types import FrameType

    from graphlint.probes.tf_graph import _GraphInfo
    from graphlint.stacks import Frame

__tracebackhide__ = True

# Distinct run signatures remembered per session (as hashes). Past this many the session is
# saturated: later combinations are no longer reported as new (never counted twice).
_SIGNATURES_PER_SESSION = 100_000


class _SessionInfo:
    __slots__ = ("sid", "gid", "site", "runs", "signatures", "version", "closed", "ref")

    def __init__(self, sid: int, gid: int, site: Frame | None, ref: weakref.ref[Any]) -> None:
        self.sid = sid
        self.gid = gid
        self.site = site
        self.runs = 0
        self.signatures: set[int] = set()  # hashes of the run signatures seen
        self.version: int | None = None
        self.closed = False
        self.ref = ref


def _signature(fetches: Any, feed_dict: Any) -> tuple[Hashable, Hashable]:
    return (_fetch_key(fetches), _feed_key(feed_dict))


def _fetch_key(obj: Any) -> Hashable:
    kind = type(obj)
    if kind is list or kind is tuple:
        return tuple([_fetch_key(item) for item in obj])
    if kind is dict:
        return tuple(sorted((repr(k), _fetch_key(v)) for k, v in obj.items()))
    if kind is str:
        return obj
    return id(obj)


def _feed_key(feed: Any) -> Hashable:
    if not feed:
        return ()
    return frozenset(k if type(k) is str else id(k) for k in feed)


def _names(fetches: Any) -> list[str]:
    """Op names of a fetch structure (only for the rare new-signature path)."""
    out: list[str] = []
    stack: list[Any] = [fetches]
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


class SessionPatches:
    """The session and saver patches of :class:`graphlint.probes.tf_graph.GraphProbe`."""

    # What the Probe it is mixed into provides (graphlint.probes._base.Probe)
    hook: Hooks
    patcher: Patcher
    _fire: Callable[..., None]
    _fire_release: Callable[..., None]
    guarded: Callable[..., Any]
    # What GraphProbe provides: its graph and session bookkeeping
    _graphs: dict[int, _GraphInfo]
    _sessions: dict[int, _SessionInfo]
    _sids: Iterator[int]
    graph_info: Callable[[Any], _GraphInfo]
    fire_about: Callable[..., None]

    def _patch_sessions(self) -> None:
        from tensorflow.python.client import session as session_lib

        probe = self
        Base = session_lib.BaseSession
        del_code = Base.__del__.__code__

        def wrap_init(original: Callable[..., None]) -> Callable[..., None]:
            def __init__(self: Any, target: Any = "", graph: Any = None, config: Any = None) -> None:
                try:
                    original(self, target, graph, config)
                    probe.guarded("session created", probe._session_created, self, sys._getframe(1))
                except BaseException as exc:
                    unwound(exc)
                    raise

            return __init__

        def wrap_run(original: Callable[..., Any]) -> Callable[..., Any]:
            def run(self: Any, fetches: Any, feed_dict: Any = None, options: Any = None, run_metadata: Any = None) -> Any:
                try:
                    info = probe._sessions.get(id(self))
                    if info is not None and info.ref() is self:
                        probe.guarded("session run", probe._session_run, self, info, fetches, feed_dict, sys._getframe(1))
                    return original(self, fetches, feed_dict, options, run_metadata)
                except BaseException as exc:
                    unwound(exc)
                    raise

            return run

        def wrap_close(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
            def close(self: Any) -> Any:
                try:
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
                except BaseException as exc:
                    unwound(exc)
                    raise

            return close

        self.patcher.patch(Base, "__init__", wrap_init)
        self.patcher.patch(Base, "run", wrap_run)
        self.patcher.patch(Base, "close", wrap_close)

    def _session_created(self, session: Any, caller: FrameType) -> None:
        graph = session.graph
        ginfo = self.graph_info(graph)
        site = user_site_from(caller, skip_init_of=session)  # past a subclass's super().__init__()
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

    def _session_released(self, key: int, info: _SessionInfo) -> None:
        if self._sessions.get(key) is info:
            del self._sessions[key]
        self._fire_release(
            self.hook.graphlint_session_released,
            session_id=info.sid,
            graph_id=info.gid,
            closed=info.closed,
            created_site=info.site,
            runs=info.runs,
        )

    def _session_run(self, session: Any, info: _SessionInfo, fetches: Any, feed_dict: Any, caller: FrameType) -> None:
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
        site = user_site_from(caller)
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
    def _patch_saver(self) -> None:
        from tensorflow.python.training import saver as saver_lib

        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def restore(self: Any, sess: Any, save_path: Any) -> Any:
                try:
                    probe.guarded("restore", probe._restore, self, sess, save_path, sys._getframe(1))
                    return original(self, sess, save_path)
                except BaseException as exc:
                    unwound(exc)
                    raise

            return restore

        self.patcher.patch(saver_lib.Saver, "restore", wrap)

    def _restore(self, saver: Any, sess: Any, save_path: Any, caller: FrameType) -> None:
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
        self.fire_about(
            self.hook.graphlint_checkpoint_restore,
            sess.graph,
            saver_names=saver_names,
            checkpoint_names=checkpoint_names,
            save_path=os.fsdecode(save_path),  # TensorFlow takes bytes too; the event's is text
            site=user_site_from(caller),
        )


def _saver_def_names(graph: Any, saver_def: Any) -> list[str]:
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
