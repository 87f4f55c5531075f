"""What builds a model and whether a loop keeps it: Keras model classes of the file and the
functions that build one (:func:`builder`), and a model kept per iteration (:func:`kept`: an
ensemble, built on purpose, not churn)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphlint.static.model.api import CLEAR_SESSION, is_keras_model

if TYPE_CHECKING:
    from graphlint.static.model.module import Module
    from graphlint.static.model.scopes import CallSite, Function, Loop

_KEEPS = frozenset({"append", "extend", "add", "insert", "appendleft"})


def model_classes(module: Module) -> set:
    """The names of the module's classes that derive from a Keras model. Once per module."""
    found = module.cache.get("keras-model-classes")
    if found is None:
        found = {name for name, cls in module.classes.items() if any(is_keras_model(b) for b in cls.bases)}
        module.cache["keras-model-classes"] = found
    return found


def builder(module: Module, fn: Function, classes: set[str]) -> CallSite | None:
    """The first call by which ``fn`` builds a Keras model (``classes``: the file's model
    classes, :func:`model_classes`), when it never calls ``clear_session()``; else None. Once
    per function."""
    key = ("keras-builder", id(fn))
    if key not in module.cache:
        builds = next((c for c in fn.calls if is_model(c, classes)), None)
        if builds is not None and any(c.name == CLEAR_SESSION for c in fn.calls):
            builds = None
        module.cache[key] = builds
    return module.cache[key]


def is_model(call: CallSite, classes: set[str]) -> bool:
    """A call that builds a Keras model: a Keras constructor, or a class of the file deriving from one."""
    if is_keras_model(call.name):
        return True
    return call.local_class is not None and call.local_class.name in classes


def kept(module: Module, call: CallSite, loop: Loop) -> bool:
    """A model kept: appended or stored (``models.append(m)``, ``models[k] = m``,
    ``trial.model = m`` on an object of the pass; not ``self.best = m``, one slot replaced at
    each pass), returned or yielded from the loop — an ensemble, not churn. A builder
    that returns the model with other values (``model, history = train(...)``) keeps it when
    one of the names it is unpacked into is kept."""
    if call.parent is not None and getattr(call.parent.func, "attr", None) in _KEEPS:
        return True
    assigned, kept_names = _keeps(module, loop)
    found = assigned.get(id(call.node))
    if found is None:
        return False
    if found is True:  # stored, returned or yielded itself
        return True
    return bool(found & kept_names)


def _keeps(module: Module, loop: Loop) -> tuple[dict, set]:
    """What a loop does with values, in one walk of it, once per loop: ``({id(value): True when
    stored, returned or yielded, else the names it is assigned to}, the names the loop keeps:
    appends, stores, returns or yields)``. A value has one parent: the first assignment of it
    in the loop is the only one."""
    key = ("keeps", id(loop.node))
    found = module.cache.get(key)
    if found is not None:
        return found
    assigned: dict = {}
    names: set = set()
    bound = {n.id for n in ast.walk(loop.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for node in ast.walk(loop.node):
        if isinstance(node, ast.Assign):
            targets = node.targets
            if id(node.value) not in assigned:
                if any(_keeps_each(t, bound) for t in targets):
                    assigned[id(node.value)] = True
                else:
                    plain = [t.id for t in targets if isinstance(t, ast.Name)]
                    # unpacked: the model is one of the names
                    assigned[id(node.value)] = {plain[0]} if plain else {
                        e.id for t in targets if isinstance(t, (ast.Tuple, ast.List)) for e in t.elts if isinstance(e, ast.Name)
                    }
            if isinstance(node.value, ast.Name) and any(_keeps_each(t, bound) for t in targets):
                names.add(node.value.id)
        elif isinstance(node, (ast.Return, ast.Yield)):
            if node.value is not None:
                assigned.setdefault(id(node.value), True)
                if isinstance(node.value, ast.Name):
                    names.add(node.value.id)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) in _KEEPS:
            names.update(a.id for a in node.args if isinstance(a, ast.Name))
    found = module.cache[key] = (assigned, names)
    return found


def _keeps_each(target: ast.expr, bound: set[str]) -> bool:
    """Whether storing into ``target`` keeps each pass's value: an item (``models[k] = m``),
    or an attribute of an object the loop makes or walks (``trial.model = m``). An attribute
    of one object the whole loop shares (``self.best = m``) is one slot, replaced each time."""
    if isinstance(target, ast.Subscript):
        return True
    if not isinstance(target, ast.Attribute):
        return False
    root = target.value
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        if isinstance(root, ast.Subscript):
            return True
        root = root.value
    return not isinstance(root, ast.Name) or root.id in bound
