"""What builds a model and whether a loop keeps it: Keras model classes of the file and the
functions that build one (:func:`builder`), and a model kept per iteration (:func:`kept`: an
ensemble, built on purpose, not churn)."""

from __future__ import annotations

import ast

from graphlint.static.model.api import CLEAR_SESSION, is_keras_model

_KEEPS = frozenset({"append", "extend", "add", "insert", "appendleft"})


def model_classes(module) -> set:
    """The names of the module's classes that derive from a Keras model. Once per module."""
    found = module.cache.get("keras-model-classes")
    if found is None:
        found = {name for name, cls in module.classes.items() if any(is_keras_model(b) for b in cls.bases)}
        module.cache["keras-model-classes"] = found
    return found


def builder(module, fn, classes):
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


def is_model(call, classes) -> bool:
    """A call that builds a Keras model: a Keras constructor, or a class of the file deriving from one."""
    if is_keras_model(call.name):
        return True
    return call.local_class is not None and call.local_class.name in classes


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
