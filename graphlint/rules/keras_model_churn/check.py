"""GL503's static form: a Keras model built in a loop that never calls ``clear_session()`` —
by a Keras constructor or loader (``load_model``, ``model_from_json``, ``Model.from_config``),
a model class of the file, or the user's function or method that builds one (in this file or
another module of the checked tree, followed a few calls deep) — unless the loop keeps the
models (an ensemble) or runs no more times than the runtime's ``max-per-site``; and a model
built or loaded on every call of a web handler or a per-call method (``predict``).

What adds no model: a functional ``Model(inputs, outputs)`` over tensors of an existing model
(``Model(m.inputs[0], m.outputs[1])``: a view that reuses the layers, no new weights), a build
under a first-time guard (``if model is None:``), and a memoized function (``@lru_cache``)."""

from __future__ import annotations

import ast

from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model import project
from graphlint.static.model.api import CLEAR_SESSION, is_keras_loader, is_keras_model, is_pretrained_model
from graphlint.static.model.models import is_model, kept, model_classes
from graphlint.static.model.names import keras_api
from graphlint.static.model.repeats import guarded, memoized, per_call_by_kind, runs_at_most
from graphlint.static.model.scopes import ClassInfo, Function
from graphlint.static.model.values import folds

_DEPTH = 3  # how deep calls of the user's functions are followed
#: A model's tensors: a ``Model`` over them is a view of that model.
_TENSORS = frozenset({"input", "inputs", "output", "outputs"})
#: Per-call methods where a model built is another rule's (a layer's ``call``: GL505).
_NOT_PER_CALL = frozenset({"call", "__call__"})


def check(module, options) -> list[Hit]:
    return list(once_per_line(keras_model_churn(module, options)))


def keras_model_churn(module, options: dict) -> list[Hit]:
    """The Keras models built in a loop that never calls ``clear_session()``, and those built
    on every call of a web handler or a per-call method."""
    classes = model_classes(module)
    if not project.reaches_elsewhere(module) and not any(_builds(call, classes) for call in module.calls):
        return []  # every path ends at a build (_built_by): none in the file, and no call leads out of it
    clears: dict = {}  # id(loop) -> whether something in it calls clear_session()
    found = []
    limit = options.get("max-per-site", 2)
    for call in module.calls:
        if not call.loops:
            continue
        loops = [loop for loop in call.loops if not loop.is_comprehension]
        if not loops or any(_clears(loop, clears) for loop in call.loops):
            continue
        path = _built_by(module, call, classes)
        if path is None:
            continue
        if runs_at_most(module, call, limit) or kept(module, call, loops[-1]):
            continue  # models kept side by side: an ensemble, not churn
        if all(_few_folds(module, loop, limit) for loop in loops):
            continue  # a k-fold cross-validation with k <= max-per-site
        loads = _loads(path[-1][1])
        fix = _RELOAD_FIX if loads else None
        # a loaded model is read from its file (or its weights downloaded) again at each pass
        tail = (
            ": the model and its weights are read again each time" if loads
            else ", and nothing in the loop calls `clear_session()`"
        )
        if len(path) == 1:
            what = "loaded" if loads else "built"
            found.append(Hit(call.node, f"a new Keras model is {what} on every iteration of this loop{tail}", fix=fix))
            continue
        verb = "loads" if loads else "builds"
        found.append(
            Hit(
                call.node,
                f"{_callee(module, call)} {verb} a new Keras model on every iteration of this loop{tail}",
                _related(module, path),
                fix,
            )
        )
    found.extend(_per_call_builds(module, classes))
    return found


def _per_call_builds(module, classes) -> list[Hit]:
    """Models built (or loaded) on every call of a web handler or a per-call method."""
    found = []
    for fn in module.functions:
        if fn.name in _NOT_PER_CALL or memoized(fn) or _clears_in(fn):
            continue
        # per call by what it is (a handler, ``predict``); one called from a loop is
        # reported at the loop's call
        reason = per_call_by_kind(module, fn)
        if reason is None:
            continue
        for call in fn.calls:
            if call.loops or guarded(call.ifs, module) or call.under_graph_default():
                continue  # a loop's own finding; a first-time build; its own graph
            path = _built_by(module, call, classes)
            if path is None:
                continue
            direct = len(path) == 1
            what = "a new Keras model is built" if direct else f"{_callee(module, call)} builds a new Keras model"
            found.append(
                Hit(
                    call.node,
                    f"{what} each time {fn.display} runs: it {reason.text}",
                    () if direct else _related(module, path),
                    "Build or load the model once — at module level, in `__init__`, or behind a cache "
                    "(`functools.lru_cache`) — and reuse it on every call.",
                )
            )
    return found


def _callee(module, call) -> str:
    if call.target is not None:
        return call.target.display
    found = project.resolve_call(module, call)
    if found is not None and isinstance(found[1], ClassInfo):
        if any(is_keras_model(b) for b in found[1].bases):
            return f"`{found[1].name}`, a Keras model class,"
        return f"`{found[1].name}()`"
    if found is not None:
        return f"`{found[1].name}()`"
    func = call.node.func if isinstance(call.node, ast.Call) else call.node
    return f"`{ast.unparse(func)}()`"


def _built_by(module, call, classes, depth=0, seen=None, tested=None):
    """The path to the Keras model that ``call`` builds, ``[(module, call site), ...]`` from
    ``call`` to the build: the call itself (a Keras constructor or loader, a model class of
    the file), or through the first unguarded build of the user's function, method or class
    it runs, followed ``_DEPTH`` calls deep (a Keras model class of another module ends the
    path at its ``class``); else None."""
    if _builds(call, classes):
        return [(module, call)]
    if depth >= _DEPTH:
        return None
    key = ("gl503-built-by", id(call.node))
    if depth == 0 and key in module.cache:
        return module.cache[key]
    path = None
    fn, other = call.target, module
    if fn is None and call.local_class is not None:
        fn = call.local_class.methods.get("__init__")
    elif fn is None and not (call.name is not None and (call.name.startswith(("tensorflow", "keras")) or call.decorator)):
        found = project.resolve_call(module, call)
        if found is not None:
            other, target = found
            if isinstance(target, ClassInfo):
                if any(is_keras_model(b) for b in target.bases):
                    path = [(module, call), (other, target)]  # reported at its ``class`` line
                fn = target.methods.get("__init__")
            else:
                fn = target
    seen = seen or set()
    if path is None and isinstance(fn, Function):
        if tested is not None:
            tested.add(id(fn))
        if id(fn) not in seen:
            inner = _built_in(other, fn, model_classes(other), depth, seen | {id(fn)}, tested)
            if inner is not None:
                path = [(module, call), *inner]
    if depth == 0:
        module.cache[key] = path
    return path


def _related(module, path) -> tuple:
    """The related places of a path that leaves ``call``: the calls it goes through, then
    where the model is built."""
    steps = []
    for other, site in path[1:-1]:
        steps.append((site.node if other is module else other.location(site.node), "through this call"))
    other, site = path[-1]
    steps = steps[-2:]  # at most 3 related places: the nearest to the build
    steps.append((site.node if other is module else other.location(site.node), "the model is built here"))
    return tuple(steps)


def _built_in(module, fn, classes, depth, seen, tested=None):
    """The path to the first model ``fn`` builds each time it runs (not under a first-time
    guard), when it never calls ``clear_session()`` and is not memoized.

    Remembered per function and depth in ``module``'s cache (a helper is reached from every
    call of it): what ``seen`` (the functions on the path here) changes is only which of the
    functions this search met it leaves out, so a result is reused while ``seen`` holds the
    same of them. ``tested`` hears of every function met (the caller's result depends on
    them too)."""
    key = ("gl503-built-in", id(fn), depth)
    entries = module.cache.setdefault(key, [])
    for met, met_seen, found in entries:
        if met_seen == {f for f in met if f in seen}:
            if tested is not None:
                tested |= met
            return found
    met = set()
    found = _search_in(module, fn, classes, depth, seen, met)
    entries.append((met, {f for f in met if f in seen}, found))
    if tested is not None:
        tested |= met
    return found


def _search_in(module, fn, classes, depth, seen, tested):
    if memoized(fn) or _clears_in(fn):
        return None
    for call in fn.calls:
        if guarded(call.ifs, module) or call.under_graph_default():
            continue
        found = _built_by(module, call, classes, depth + 1, seen, tested)
        if found is not None:
            return found
    return None


def _builds(call, classes) -> bool:
    """A call that makes a whole Keras model: a constructor (not a view over an existing
    model's tensors), a loader, ``Model.from_config``, or a model class of the file."""
    if is_model(call, classes):
        return not _view(call)
    return is_keras_loader(call.name) or is_pretrained_model(call.name)


def _loads(site) -> bool:
    """A loader, ``from_config`` or a ``keras.applications`` constructor (``InceptionV3(weights=
    'imagenet')``): the model comes whole from a file, a config or downloaded weights."""
    name = getattr(site, "name", None)
    return is_keras_loader(name) or is_pretrained_model(name)


_RELOAD_FIX = (
    "Load the model once, before the loop, and reuse it; to pick up new weights, call "
    "`model.load_weights(path)` on the model you have."
)


def _view(call) -> bool:
    """``Model(inputs=m.inputs[0], outputs=m.outputs[1])``: a functional model over tensors of
    an existing model, which reuses its layers and adds no weights."""
    node = call.node
    if not isinstance(node, ast.Call) or keras_api(call.name) not in ("Model", "models.Model"):
        return False
    parts = [*node.args[:2], *(k.value for k in node.keywords if k.arg in ("inputs", "outputs"))]
    return len(parts) == 2 and all(_existing_tensors(p) for p in parts)


def _existing_tensors(expr) -> bool:
    if isinstance(expr, (ast.List, ast.Tuple)):
        return bool(expr.elts) and all(_existing_tensors(e) for e in expr.elts)
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return isinstance(expr, ast.Attribute) and expr.attr in _TENSORS


def _few_folds(module, loop, limit: int) -> bool:
    iterable = getattr(loop.node, "iter", None)
    if iterable is None:
        return False
    n = folds(module, loop.scope, iterable)
    return n is not None and n <= limit


def _clears(loop, memo: dict) -> bool:
    key = id(loop)
    if key not in memo:
        memo[key] = any(c.name == CLEAR_SESSION for c in loop.calls)
    return memo[key]


def _clears_in(fn) -> bool:
    return any(c.name == CLEAR_SESSION for c in fn.calls)
