"""Keras models and tf.functions made again and again (GL503, GL502); ``with`` on a graph (GL103)."""

from __future__ import annotations

import ast

from graphlint.static.model import project
from graphlint.static.hits import Hit
from graphlint.static.model.repeats import per_call, runs_at_most
from graphlint.static.model.scopes import GRAPH, ClassInfo
from graphlint.static.model.api import CLEAR_SESSION, TF_FUNCTION, is_keras_model

_KEEPS = frozenset({"append", "extend", "add", "insert", "appendleft"})


def keras_model_churn(module, options: dict) -> list[Hit]:
    """GL503's static form: a Keras model built in a loop that never calls ``clear_session()``."""
    model_classes = _model_classes(module)
    clears: dict = {}  # id(loop) -> whether something in it calls clear_session()
    found = []
    for call in module.calls:
        if not call.loops:
            continue
        loops = [loop for loop in call.loops if not loop.is_comprehension]
        if not loops or any(_clears(loop, clears) for loop in call.loops):
            continue
        inner = _builder(module, call.target, model_classes) if call.target is not None else None
        elsewhere = None if inner is not None or call.target is not None else _built_elsewhere(module, call)
        model = _is_model(call, model_classes)
        if not (inner is not None or elsewhere or model):
            continue
        if runs_at_most(module, call, options.get("max-per-site", 2)) or kept(module, call, loops[-1]):
            continue  # models kept side by side: an ensemble, not churn
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
        else:
            found.append(
                Hit(
                    call.node,
                    f"{call.target.display} builds a new Keras model on every iteration of this loop, "
                    "and nothing in the loop calls `clear_session()`",
                    ((inner.node, "the model is built here"),),
                )
            )
    return found


def _clears(loop, memo: dict) -> bool:
    key = id(loop)
    if key not in memo:
        memo[key] = any(c.name == CLEAR_SESSION for c in loop.calls)
    return memo[key]


def _model_classes(module) -> set:
    """The names of the module's classes that derive from a Keras model. Once per module."""
    found = module.cache.get("keras-model-classes")
    if found is None:
        found = {name for name, cls in module.classes.items() if any(is_keras_model(b) for b in cls.bases)}
        module.cache["keras-model-classes"] = found
    return found


def _builder(module, fn, model_classes):
    """The first call by which ``fn`` builds a Keras model, when it never calls
    ``clear_session()``; else None. Once per function."""
    key = ("keras-builder", id(fn))
    if key not in module.cache:
        builds = next((c for c in fn.calls if _is_model(c, model_classes)), None)
        if builds is not None and any(c.name == CLEAR_SESSION for c in fn.calls):
            builds = None
        module.cache[key] = builds
    return module.cache[key]


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
    builds = _builder(other, target, _model_classes(other))
    if builds is None:
        return None
    return f"`{target.name}()`", other.location(builds.node)


def kept(module, call, loop) -> bool:
    """A model kept: appended or stored (``models.append(m)``, ``models[k] = m``,
    ``obj.model = m``), returned or yielded from the loop — an ensemble, not churn. A builder
    that returns the model with other values (``model, history = train(...)``) keeps it when
    one of the names it is unpacked into is kept."""
    if call.parent is not None and getattr(call.parent.func, "attr", None) in _KEEPS:
        return True
    holders: set = set()
    for node in ast.walk(loop.node):
        if isinstance(node, ast.Assign) and node.value is call.node:
            targets = node.targets
            if any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in targets):
                return True
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if names:
                holders = {names[0]}
            else:  # unpacked: the model is one of the names
                holders = {e.id for t in targets if isinstance(t, (ast.Tuple, ast.List)) for e in t.elts if isinstance(e, ast.Name)}
            break
        if isinstance(node, (ast.Return, ast.Yield)) and node.value is call.node:
            return True
    if not holders:
        return False
    for node in ast.walk(loop.node):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in _KEEPS:
            if any(isinstance(a, ast.Name) and a.id in holders for a in node.args):
                return True
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in holders:
            if any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in node.targets):
                return True
        elif isinstance(node, (ast.Return, ast.Yield)) and isinstance(node.value, ast.Name) and node.value.id in holders:
            return True
    return False


def _is_model(call, model_classes) -> bool:
    if is_keras_model(call.name):
        return True
    return call.local_class is not None and call.local_class.name in model_classes


def function_recreated(module, options: dict) -> list[Hit]:
    """GL502's static form: ``tf.function`` applied in a loop or per call."""
    found = []
    for call in module.calls_named(TF_FUNCTION):
        what = "`@tf.function` on a nested def" if call.decorator else "`tf.function(...)`"
        if call.loops:
            found.append(
                Hit(call.node, f"{what} inside a loop: a new function, traced again, on every iteration")
            )
        elif call.scope is not None:
            reason = per_call(module, call.scope)
            if reason is not None:
                related = ((reason.site.node, "called here"),) if reason.site else ()
                found.append(
                    Hit(
                        call.node,
                        f"{what} in {call.scope.display}, which {reason.text}: a new function, traced "
                        "again, on every call",
                        related,
                    )
                )
    return found


def graph_not_default(module, options: dict) -> list[Hit]:
    """GL103's static form: ``with`` entered on a ``tf.Graph()`` call, or a name bound only to
    one; offers the ``.as_default()`` fix."""
    found = []
    for item in module.withs:
        expr = item.expr
        if isinstance(expr, ast.Call):
            hit = item.call_name == GRAPH
        else:
            hit = isinstance(expr, (ast.Name, ast.Attribute)) and module.origins(expr, item.scope) == {GRAPH}
        if not hit:
            continue
        found.append(
            Hit(
                expr,
                "`with` on a tf.Graph does not make it the default graph: ops built in this block "
                "still go to the global default graph",
            )
        )
        end = module.offset(expr.end_lineno, expr.end_col_offset)
        module.add_edit("GL103", expr.lineno, end, end, ".as_default()")
    return found
