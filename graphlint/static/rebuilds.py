"""Functions that build their model again each time they run (GL101, and GL202's third form)."""

from __future__ import annotations

from graphlint.static.model import project
from graphlint.static.churn import kept
from graphlint.static.hits import Hit
from graphlint.static.model.repeats import guarded, isolated, per_call, times_run
from graphlint.static.model.scopes import ONCE_METHODS
from graphlint.static.model.sessions import is_session_run
from graphlint.static.model.api import PLACEHOLDERS, TF_FUNCTION, builds_model, builds_ops, is_minimize


class Rebuild:
    """A function the static engine judges to rebuild its ops: where, and why."""

    __slots__ = ("function", "first", "reason", "sites")

    def __init__(self, function, first, reason, sites):
        self.function, self.first, self.reason, self.sites = function, first, reason, sites


def rebuilds(module) -> list[Rebuild]:
    """Functions that build a model (placeholders, variables, layers, ``minimize``,
    ``Saver()``) into the default graph — not under their own ``as_default()`` — and either
    run it in a session and run per call or more than once, or build a whole input-to-output
    model and are called more than once. Computed once per module."""
    cached = module.cache.get("rebuilds")
    if cached is not None:
        return cached
    found = []
    model_builds = _model_builds(module)
    for fn in module.functions:
        builds = model_builds.get(id(fn))
        if builds is None or fn.name in ONCE_METHODS or fn.resets_state() or _compiled(module, fn):
            continue
        callers = [s for s in fn.callers if not isolated(s) and not guarded(s.ifs)]
        reason = None
        if any(is_session_run(module, c) for c in fn.calls):
            why = per_call(module, fn)
            same = _same_path(callers)
            if why is not None:
                reason, sites = why.text, ([why.site] if why.site else []) + callers
            elif len(same) >= 2:
                reason, sites = f"is called {len(same)} times, and each call runs the model it built", same
        elif any(c.api in PLACEHOLDERS for c in builds) and any(
            builds_ops(c.name) and c.api not in PLACEHOLDERS and not c.under_graph_default() for c in fn.calls
        ):
            in_loop = next((s for s in callers if s.loops and _repeats(module, s)), None)
            if in_loop is not None:
                reason, sites = f"is called in a loop (line {in_loop.line})", callers
        if reason is not None:
            unique = list({id(s): s for s in sites}.values())
            found.append(Rebuild(fn, min(builds, key=lambda c: (c.line, c.node.col_offset)), reason, unique))
    found += _instances_rebuilt(module, model_builds)
    module.cache["rebuilds"] = found
    return found


def _instances_rebuilt(module, model_builds) -> list[Rebuild]:
    """A class whose ``__init__`` builds a model into the default graph (placeholders and ops
    on them, or a model it runs in a session), made again and again: in a loop that does not
    keep the objects (an ensemble kept side by side is built on purpose), or in a function that
    runs per call. Each object adds another copy of the model to the one default graph."""
    found = []
    for cls in module.classes.values():
        init = cls.methods.get("__init__")
        builds = model_builds.get(id(init)) if init is not None else None
        if builds is None or init.resets_state() or _compiled(module, init):
            continue
        whole = any(is_session_run(module, c) for c in init.calls) or (
            any(c.api in PLACEHOLDERS for c in builds)
            and any(builds_ops(c.name) and c.api not in PLACEHOLDERS and not c.under_graph_default() for c in init.calls)
        )
        if not whole:
            continue
        sites, reason = [], None
        for site in module.calls:
            if site.local_class is not cls or guarded(site.ifs) or isolated(site):
                continue
            loops = [loop for loop in site.loops if not loop.is_comprehension]
            if loops and _repeats(module, site) and not kept(module, site, loops[-1]):
                reason = reason or f"`{cls.name}` is made in a loop (line {site.line})"
                sites.append(site)
            elif not site.loops and site.scope is not None:
                why = per_call(module, site.scope)
                if why is not None:
                    reason = reason or f"`{cls.name}` is made in {site.scope.display}, which {why.text}"
                    sites.append(site)
        if reason is not None:
            first = min(builds, key=lambda c: (c.line, c.node.col_offset))
            found.append(Rebuild(init, first, reason, sites))
    return found


def _same_path(callers) -> list:
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


def _exclusive(a, b) -> bool:
    """Two calls on different branches of one ``if``/``try``/``match``: never both run."""
    for x, y in zip(a.block, b.block):
        if x != y:
            return x[0] == y[0] or (x[1] == y[1] and x[1] in ("handler", "case"))
    return False


def _repeats(module, site) -> bool:
    """A loop around the call that runs more than once, as far as the source tells."""
    n = times_run(module, site)
    return n is None or n >= 2


def _model_builds(module) -> dict:
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


def _compiled(module, fn) -> bool:
    """Decorated with ``@tf.function``: it builds into the function's own graph."""
    return any(module.bindings.resolve(d) == TF_FUNCTION for d in fn.node.decorator_list)


def _builds_and_runs(module, fn):
    """The first model-building call of a function that also runs a session, or None."""
    key = ("builds-and-runs", id(fn))
    if key in module.cache:
        return module.cache[key]
    builds = _model_builds(module).get(id(fn))
    first = None
    if builds and fn.name not in ONCE_METHODS and not fn.resets_state() and not _compiled(module, fn):
        if any(is_session_run(module, c) for c in fn.calls):
            first = min(builds, key=lambda c: (c.line, c.node.col_offset))
    module.cache[key] = first
    return first


def rebuilt_elsewhere(module) -> list[Hit]:
    """Calls, in a loop, of a function of another module of the checked tree that builds a
    model and runs it: reported at the calling line (the other file may not be checked).
    Cheap tests first: how many times the loop runs is asked only of the calls that lead to
    such a function."""
    found = []
    for loop in module.loops:
        if loop.is_comprehension or loop.resets_state():
            continue
        for call in loop.calls:
            if call.target is not None or call.under_graph_default() or guarded(call.ifs):
                continue
            resolved = project.resolve_function(module, call)
            if resolved is None or resolved[0] is module:
                continue
            other, fn = resolved
            first = _builds_and_runs(other, fn)
            if first is not None and _repeats(module, call):
                found.append(
                    Hit(
                        call.node,
                        f"`{fn.name}()` builds graph ops each time it runs and is called in a loop here: "
                        "every run adds another copy to the default graph",
                        ((other.location(first.node), "it builds the model here"),),
                    )
                )
    return found


def graph_rebuilt(module) -> list[Hit]:
    """GL101's static form."""
    return rebuilt_elsewhere(module) + [
        Hit(
            r.first.node,
            f"{r.function.display} builds graph ops each time it runs and {r.reason}: every run "
            "adds another copy to the default graph",
            tuple((s.node, "called here") for s in r.sites[:3]),
        )
        for r in rebuilds(module)
    ]
