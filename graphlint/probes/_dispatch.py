"""Calling pluggy hooks from the probes' hot paths at a fraction of pluggy's per-call cost.

``HookCaller.__call__`` applies spec defaults, checks every spec argument, copies the list of
implementations and runs ``_multicall`` (wrappers, teardowns, a results list). For the common
case — every implementation a plain function, no wrapper, no ``firstresult``, no call
monitoring — :class:`FastHook` does exactly what ``_multicall`` does for plain implementations:
call each one, last registered first, with the arguments it names, collect nothing (the probes
ignore results) and let an exception propagate at once. Anything else goes through pluggy.

The plan is rebuilt whenever the hook's implementations change (``get_hookimpls()`` is compared
by identity on each call), so registering or unregistering a rule mid-run is seen at once.

This leans on three pluggy internals: ``_multicall`` (to tell whether call monitoring replaced
it), the plugin manager's ``_inner_hookexec`` and a HookCaller's ``_hookexec.__self__`` (to find
its plugin manager). pluggy's version is pinned to the range these were read from
(``pyproject.toml``), and when any of them is missing or different the hook goes through
pluggy's own call path: slower, never wrong (``tests/test_dispatch.py`` checks both).
"""

from __future__ import annotations

from typing import Any

_PLUGGY = None  # a plan meaning "call the HookCaller itself"


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


class FastHook:
    """One hook of one plugin manager, callable like the HookCaller with keyword arguments."""

    __slots__ = ("caller", "name", "pm", "_impls", "_plan", "_spec_names")

    def __init__(self, caller, pm=None):
        self.caller = caller
        self.name = caller.name
        self.pm = pm
        self._impls: list | None = None
        self._plan: tuple | None = _PLUGGY
        spec = caller.spec
        self._spec_names = frozenset(spec.argnames) if spec is not None else frozenset()

    def plan(self) -> tuple | None:
        """``()`` when nothing implements the hook, a tuple of ``(function, argnames)`` to call
        in order, or ``None`` when only pluggy itself can call it faithfully."""
        impls = self.caller.get_hookimpls()
        if impls != self._impls:  # HookImpl has no __eq__: compared by identity
            self._impls = impls
            self._plan = self._make_plan(impls)
        if self.pm is None or _MULTICALL is None:
            return _PLUGGY  # pluggy's internals are not what this module knows
        if vars(self.pm).get("_inner_hookexec") is not _MULTICALL:
            return _PLUGGY  # tracing / call monitoring is on (or unknown): let pluggy call it
        return self._plan

    def _make_plan(self, impls) -> tuple | None:
        caller = self.caller
        spec = caller.spec
        if _MULTICALL is None or caller.is_historic():
            return _PLUGGY
        if spec is not None and (spec.opts.get("firstresult") or getattr(spec, "kwargdefaults", None)):
            return _PLUGGY
        plan = []
        for impl in reversed(impls):  # pluggy calls the last registered first
            if impl.wrapper or impl.hookwrapper or impl.kwargnames:
                return _PLUGGY
            plan.append((impl.function, tuple(impl.argnames)))
        return tuple(plan)

    def __call__(self, **kwargs: Any) -> None:
        plan = self.plan()
        if plan is _PLUGGY or not self._spec_names <= kwargs.keys():
            self.caller(**kwargs)  # pluggy's own warnings and errors for a malformed call
            return
        for function, argnames in plan:
            function(*[kwargs[name] for name in argnames])
