"""GL503's static form: a Keras model built in a loop that never calls ``clear_session()`` —
by a Keras constructor, a model class of the file, a function of the file that builds one, or
one of another module of the checked tree — unless the loop keeps the models (an ensemble) or
runs no more times than the runtime's ``max-per-site``."""

from __future__ import annotations

from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model import project
from graphlint.static.model.api import CLEAR_SESSION, is_keras_model
from graphlint.static.model.models import builder, is_model, kept, model_classes
from graphlint.static.model.repeats import runs_at_most
from graphlint.static.model.scopes import ClassInfo
from graphlint.static.model.values import folds


def check(module, options) -> list[Hit]:
    return list(once_per_line(keras_model_churn(module, options)))


def keras_model_churn(module, options: dict) -> list[Hit]:
    """The Keras models built in a loop that never calls ``clear_session()``."""
    classes = model_classes(module)
    clears: dict = {}  # id(loop) -> whether something in it calls clear_session()
    found = []
    for call in module.calls:
        if not call.loops:
            continue
        loops = [loop for loop in call.loops if not loop.is_comprehension]
        if not loops or any(_clears(loop, clears) for loop in call.loops):
            continue
        inner = builder(module, call.target, classes) if call.target is not None else None
        elsewhere = None if inner is not None or call.target is not None else _built_elsewhere(module, call)
        model = is_model(call, classes)
        if not (inner is not None or elsewhere or model):
            continue
        limit = options.get("max-per-site", 2)
        if runs_at_most(module, call, limit) or kept(module, call, loops[-1]):
            continue  # models kept side by side: an ensemble, not churn
        if all(_few_folds(module, loop, limit) for loop in loops):
            continue  # a k-fold cross-validation with k <= max-per-site
        if elsewhere is not None:
            what, where = elsewhere
            found.append(
                Hit(
                    call.node,
                    f"{what} builds a new Keras model on every iteration of this loop, and nothing in "
                    "the loop calls `clear_session()`",
                    ((where, "the model is built here"),),
                )
            )
        elif model:
            found.append(
                Hit(
                    call.node,
                    "a new Keras model is built on every iteration of this loop, and nothing in the "
                    "loop calls `clear_session()`",
                )
            )
        elif inner is not None and call.target is not None:  # what is left: the user's builder
            found.append(
                Hit(
                    call.node,
                    f"{call.target.display} builds a new Keras model on every iteration of this loop, "
                    "and nothing in the loop calls `clear_session()`",
                    ((inner.node, "the model is built here"),),
                )
            )
    return found


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


def _built_elsewhere(module, call):
    """A Keras model class, or a function building one, of another module of the checked tree:
    ``(what, Location of the model)`` or None."""
    if call.name is not None and (call.name.startswith(("tensorflow", "keras")) or call.decorator):
        return None
    found = project.resolve_call(module, call)
    if found is None:
        return None
    other, target = found
    if isinstance(target, ClassInfo):
        if any(is_keras_model(b) for b in target.bases):
            return f"`{target.name}`, a Keras model class,", other.location(target.node)
        return None
    builds = builder(other, target, model_classes(other))
    if builds is None:
        return None
    return f"`{target.name}()`", other.location(builds.node)
