"""Calling pluggy hooks from the probes' hot paths at a fraction of pluggy's per-call cost.

``HookCaller.__call__`` applies spec defaults, checks every spec argument, copies the list of
implementations and runs ``_multicall`` (wrappers, teardowns, a results list). For the common
case — every implementation a plain function, no wrapper, no ``firstresult``, no call
monitoring — :class:`FastHook` does exactly what ``_multicall`` does for plain implementations:
call each one, last registered first, with the arguments it names, collect nothing (the probes
ignore results) and let an exception propagate at once. Anything else goes through pluggy.

The calls are compiled into one function per hook and set of implementations (``current()``),
which takes the spec's arguments by keyword and calls each implementation with the ones it
names: no dictionary, no list per call. A rule's hook method is isolated (an exception in it
is a GL000 finding, :func:`graphlint.rules._base._isolated`); the compiled function does that
isolation itself, around the rule's own method, instead of calling the isolating wrapper.

The plan is rebuilt whenever the hook's implementations change: graphlint's plugin manager
counts its registrations (``graphlint_stamp``); for any other manager ``get_hookimpls()`` is
compared by identity on each call. Registering or unregistering a rule mid-run is seen at once.

This leans on three pluggy internals: ``_multicall`` (to tell whether call monitoring replaced
it), the plugin manager's ``_inner_hookexec`` and a HookCaller's ``_hookexec.__self__`` (to find
its plugin manager). pluggy's version is pinned to the range these were read from
(``pyproject.toml``), and when any of them is missing or different the hook goes through
pluggy's own call path: slower, never wrong (``tests/test_dispatch.py`` checks both).
"""

from __future__ import annotations

from typing import Any

_PLUGGY = None  # a plan meaning "call the HookCaller itself"
NOBODY = ()  # what current() returns when no implementation listens: nothing to call


def _default_hookexec():
    try:
        from pluggy._callers import _multicall  # pluggy < 1.6
    except ImportError:  # pragma: no cover - depends on the installed pluggy
        try:
            from pluggy._execution import _multicall
        except ImportError:
            return None
    return _multicall


_MULTICALL = _default_hookexec()
_UNSEEN = object()


class FastHook:
    """One hook of one plugin manager, callable like the HookCaller with keyword arguments."""

    __slots__ = ("caller", "name", "pm", "_impls", "_plan", "_call", "_stamp", "_spec_names", "_params")

    def __init__(self, caller, pm=None):
        self.caller = caller
        self.name = caller.name
        self.pm = pm
        self._impls: list | None = None
        self._plan: tuple | None = _PLUGGY
        self._call: Any = _PLUGGY
        self._stamp: object = _UNSEEN
        spec = caller.spec
        self._params = tuple(spec.argnames) if spec is not None else ()
        self._spec_names = frozenset(self._params)

    def _refresh(self) -> None:
        stamp = getattr(self.pm, "graphlint_stamp", _UNSEEN)
        if stamp is not _UNSEEN and stamp == self._stamp:
            return
        impls = self.caller.get_hookimpls()
        self._stamp = stamp
        if impls != self._impls:  # HookImpl has no __eq__: compared by identity
            self._impls = impls
            self._plan = self._make_plan(impls)
            self._call = _PLUGGY if self._plan is _PLUGGY else _compile(self.name, self._params, self._plan)

    def _pluggy_only(self) -> bool:
        if self.pm is None or _MULTICALL is None:
            return True  # pluggy's internals are not what this module knows
        # tracing / call monitoring is on (or unknown): let pluggy call it
        return vars(self.pm).get("_inner_hookexec") is not _MULTICALL

    def plan(self) -> tuple | None:
        """``()`` when nothing implements the hook, a tuple of ``(function, argnames, on_error)``
        to call in order, or ``None`` when only pluggy itself can call it faithfully."""
        self._refresh()
        return _PLUGGY if self._pluggy_only() else self._plan

    def current(self):
        """:data:`NOBODY` when no implementation listens, ``None`` when only pluggy can call the
        hook faithfully, else a function taking every spec argument by keyword."""
        pm = self.pm  # (once per op: _refresh and _pluggy_only, inlined)
        stamp = getattr(pm, "graphlint_stamp", _UNSEEN)
        if stamp is _UNSEEN or stamp != self._stamp:
            self._refresh()
        if pm is None or _MULTICALL is None or pm.__dict__.get("_inner_hookexec") is not _MULTICALL:
            return _PLUGGY
        return self._call

    def _make_plan(self, impls) -> tuple | None:
        caller = self.caller
        spec = caller.spec
        if _MULTICALL is None or caller.is_historic() or spec is None:
            return _PLUGGY
        if spec.opts.get("firstresult") or getattr(spec, "kwargdefaults", None):
            return _PLUGGY
        plan = []
        for impl in reversed(impls):  # pluggy calls the last registered first
            if impl.wrapper or impl.hookwrapper or impl.kwargnames:
                return _PLUGGY
            function, on_error = impl.function, None
            method = getattr(getattr(function, "__func__", None), "_graphlint_method", None)
            if method is not None:  # a rule's isolated hook: isolate its own method here
                function, on_error = method.__get__(function.__self__), function.__self__._internal_error
            plan.append((function, tuple(impl.argnames), on_error))
        return tuple(plan)

    def __call__(self, **kwargs: Any) -> None:
        call = self.current()
        if call is NOBODY:
            return
        if call is _PLUGGY or kwargs.keys() != self._spec_names:
            self.caller(**kwargs)  # pluggy's own warnings and errors for a malformed call
            return
        call(**kwargs)


_compiled: dict[tuple, object] = {}  # the code of one shape of plan, compiled once


def _compile(name: str, params: tuple[str, ...], plan: tuple):
    """One function calling every implementation of ``plan`` with the arguments it names."""
    if not plan:
        return NOBODY
    shape = (name, params, tuple((argnames, on_error is not None) for _, argnames, on_error in plan))
    code = _compiled.get(shape)
    if code is None:
        lines = [f"def {name}({', '.join(params)}):"]
        for i, (_, argnames, on_error) in enumerate(plan):
            call = f"_f{i}({', '.join(argnames)})"
            if on_error is None:
                lines.append(f"    {call}")
            else:
                lines += ["    try:", f"        {call}", "    except Exception as exc:", f"        _e{i}(exc, {name!r})"]
        code = compile("\n".join(lines), f"<graphlint dispatch of {name}>", "exec")
        if len(_compiled) < 1_000:
            _compiled[shape] = code
    namespace: dict[str, Any] = {}
    for i, (function, _, on_error) in enumerate(plan):
        namespace[f"_f{i}"] = function
        if on_error is not None:
            namespace[f"_e{i}"] = on_error
    exec(code, namespace)
    return namespace[name]
