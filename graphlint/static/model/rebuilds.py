"""Functions that build their model again each time they run: what GL101 reports, and what
GL102 (not ops in a run loop: a rebuild) and GL202 (its third form) read.

A function rebuilds when it builds a model (placeholders, variables, layers, ``minimize``,
``Saver()``) into the default graph — not under its own ``as_default()`` — and either runs it
in a session and runs per call or more than once, or builds a whole input-to-output model and
is called in a loop; a class whose ``__init__`` builds one, made again and again, rebuilds it
per object. Computed once per module (:func:`rebuilds`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from graphlint.static.model.api import PLACEHOLDERS, TF_FUNCTION, builds_model, builds_ops, is_minimize
from graphlint.static.model.models import kept
from graphlint.static.model.repeats import guarded, isolated, per_call, runs_more_than_once
from graphlint.static.model.scopes import ONCE_METHODS
from graphlint.static.model.sessions import is_session_run

if TYPE_CHECKING:
    from graphlint.static.model.module import Module
    from graphlint.static.model.scopes import CallSite, Function


class Rebuild:
    """A function the static engine judges to rebuild its ops: where, and why (``loop``: the
    call in a loop and the loop a chain of callers starts from, :meth:`Reason.loop_sites`)."""

    __slots__ = ("function", "first", "reason", "sites", "loop")

    def __init__(
        self, function: Function, first: CallSite, reason: str, sites: list[CallSite], loop: tuple = ()
    ) -> None:
        self.function, self.first, self.reason, self.sites, self.loop = function, first, reason, sites, loop


def rebuilds(module: Module) -> list[Rebuild]:
    """Functions that build a model (placeholders, variables, layers, ``minimize``,
    ``Saver()``) into the default graph — not under their own ``as_default()`` — and either
    run it in a session and run per call or more than once, or build a whole input-to-output
    model and are called more than once. Computed once per module."""
    cached = module.cache.get("rebuilds")
    if cached is not None:
        return cached
    found = []
    builds_of = model_builds(module)
    for fn in module.functions:
        builds = builds_of.get(id(fn))
        if builds is None or fn.name in ONCE_METHODS or fn.resets_state() or compiled(module, fn):
            continue
        callers = [s for s in fn.callers if not isolated(s, module) and not guarded(s.ifs)]
        reason: str | None = None
        loop: tuple[tuple[Any, str], ...] = ()
        if any(is_session_run(module, c) for c in fn.calls):
            why = per_call(module, fn)
            same = _same_path(callers)
            if why is not None:
                reason, sites, loop = why.text, ([why.site] if why.site else []) + callers, why.loop_sites()
            elif len(same) >= 2:
                reason, sites = f"is called {len(same)} times, and each call runs the model it built", same
        elif any(c.api in PLACEHOLDERS for c in builds) and any(
            builds_ops(c.name) and c.api not in PLACEHOLDERS and not c.under_graph_default() for c in fn.calls
        ):
            in_loop = next((s for s in callers if s.loops and runs_more_than_once(module, s)), None)
            if in_loop is not None:
                reason, sites = f"is called in a loop (line {in_loop.line})", callers
        if reason is not None:
            unique = list({id(s): s for s in sites}.values())
            found.append(Rebuild(fn, min(builds, key=lambda c: (c.line, c.node.col_offset)), reason, unique, loop))
    found += _instances_rebuilt(module, builds_of)
    module.cache["rebuilds"] = found
    return found


def _instances_rebuilt(module: Module, builds_of: dict[int, list[CallSite]]) -> list[Rebuild]:
    """A class whose ``__init__`` builds a model into the default graph (placeholders and ops
    on them, or a model it runs in a session), made again and again: in a loop that does not
    keep the objects (an ensemble kept side by side is built on purpose), or in a function that
    runs per call. Each object adds another copy of the model to the one default graph."""
    found = []
    made: dict = {}  # id(class) -> the calls that make an object of it, in order
    for site in module.calls:
        if site.local_class is not None:
            made.setdefault(id(site.local_class), []).append(site)
    for cls in module.classes.values():
        init = cls.methods.get("__init__")
        builds = builds_of.get(id(init)) if init is not None else None
        if init is None or builds is None or init.resets_state() or compiled(module, init):
            continue
        whole = any(is_session_run(module, c) for c in init.calls) or (
            any(c.api in PLACEHOLDERS for c in builds)
            and any(builds_ops(c.name) and c.api not in PLACEHOLDERS and not c.under_graph_default() for c in init.calls)
        )
        if not whole:
            continue
        sites: list[CallSite] = []
        reason: str | None = None
        loop: tuple[tuple[Any, str], ...] = ()
        for site in made.get(id(cls), ()):
            if guarded(site.ifs) or isolated(site, module):
                continue
            loops = [loop for loop in site.loops if not loop.is_comprehension]
            if loops and runs_more_than_once(module, site) and not kept(module, site, loops[-1]):
                reason = reason or f"`{cls.name}` is made in a loop (line {site.line})"
                sites.append(site)
            elif not site.loops and site.scope is not None:
                why = per_call(module, site.scope)
                if why is not None:
                    if reason is None:
                        reason, loop = f"`{cls.name}` is made in {site.scope.display}, which {why.text}", why.loop_sites()
                    sites.append(site)
        if reason is not None:
            first = min(builds, key=lambda c: (c.line, c.node.col_offset))
            found.append(Rebuild(init, first, reason, sites, loop))
    return found


def _same_path(callers: Iterable[CallSite]) -> list[CallSite]:
    """The largest group of call sites in one function (or the module body): a build repeated
    on one path. Call sites in different functions (two tests, ``build()`` and
    ``build_for_tpu()``) are alternatives, each used once."""
    groups: dict = {}
    for site in callers:
        groups.setdefault(id(site.scope), []).append(site)
    best: list = []
    for sites in groups.values():
        sites = sorted(sites, key=lambda s: (s.line, s.node.col_offset))
        chain = [sites[0]]
        for site in sites[1:]:
            if not any(_exclusive(site, other) for other in chain):
                chain.append(site)
        if len(chain) > len(best):
            best = chain
    return best


def _exclusive(a: CallSite, b: CallSite) -> bool:
    """Two calls on different branches of one ``if``/``try``/``match``: never both run."""
    for x, y in zip(a.block, b.block):
        if x != y:
            return x[0] == y[0] or (x[1] == y[1] and x[1] in ("handler", "case"))
    return False


def model_builds(module: Module) -> dict:
    """Each function's calls that build a part of a model (placeholders, variables, layers,
    ``minimize``, ``Saver()``) into the default graph, not under an ``as_default()``, in order:
    ``{id(function): [CallSite, ...]}``, functions that build none left out. Once per module."""
    found = module.cache.get("model-builds")
    if found is None:
        found = {}
        for fn in module.functions:
            builds = [
                c for c in fn.calls if (builds_model(c.name) or is_minimize(module, c)) and not c.under_graph_default()
            ]
            if builds:
                found[id(fn)] = builds
        module.cache["model-builds"] = found
    return found


def compiled(module: Module, fn: Function) -> bool:
    """Decorated with ``@tf.function``: it builds into the function's own graph."""
    return any(module.bindings.resolve(d) == TF_FUNCTION for d in fn.node.decorator_list)


def builds_and_runs(module: Module, fn: Function) -> CallSite | None:
    """The first model-building call of a function that also runs a session, or None."""
    key = ("builds-and-runs", id(fn))
    if key in module.cache:
        return module.cache[key]
    builds = model_builds(module).get(id(fn))
    first = None
    if builds and fn.name not in ONCE_METHODS and not fn.resets_state() and not compiled(module, fn):
        if any(is_session_run(module, c) for c in fn.calls):
            first = min(builds, key=lambda c: (c.line, c.node.col_offset))
    module.cache[key] = first
    return first
