"""Layers and variables created in ``call()`` of a Keras layer or model class (GL505's static form).

A class is a Keras layer when one of its bases resolves to ``keras.Layer``/``keras.Model``/
``keras.Sequential`` or a ``keras.layers`` class (through ``tf.keras``, ``keras`` or ``tf_keras``),
or to a class of the same file that is one. In its method ``call``, a ``keras.layers`` class, a
Keras layer class of the file, ``tf.Variable``/``keras.Variable`` or ``self.add_weight(...)``
constructed outside a guard (``if not hasattr(self, ...)``, ``if not self.built``, ``if
self.x is None``) is a hit; ``__init__`` and ``build()`` are where they belong.
"""

from __future__ import annotations

import ast

from graphlint.static.hits import Hit
from graphlint.static.model.names import api, keras_api

_MODEL_BASES = frozenset({"Layer", "Model", "Sequential", "layers.Layer", "models.Model", "models.Sequential"})
_NOT_LAYERS = frozenset({"Input", "InputSpec"})
_VARIABLES = frozenset({"keras.Variable", "keras.variables.Variable"})
_ADD_WEIGHT = frozenset({"add_weight", "add_variable"})


def _is_keras_class_name(name: str | None) -> bool:
    k = keras_api(name)
    if k is None:
        return False
    if k in _MODEL_BASES:
        return True
    namespace, _, last = k.rpartition(".")
    return namespace == "layers" and last[:1].isupper() and last not in _NOT_LAYERS


def keras_layer_classes(module) -> dict:
    """The file's classes that derive (directly or through each other) from a Keras layer.
    Once per module."""
    found = module.cache.get("keras-layer-classes")
    if found is None:
        found = module.cache["keras-layer-classes"] = _keras_layer_classes(module)
    return found


def _keras_layer_classes(module) -> dict:
    found: dict = {}
    changed = True
    while changed:
        changed = False
        for name, cls in module.classes.items():
            if name in found:
                continue
            local = [b.id for b in cls.node.bases if isinstance(b, ast.Name)]
            if any(_is_keras_class_name(b) for b in cls.bases) or any(b in found for b in local):
                found[name] = cls
                changed = True
    return found


def _guarded(call) -> bool:
    """Inside an ``if`` that creates the part only once (hasattr / built / is None on self)."""
    for node, _ in call.ifs:
        for sub in ast.walk(node.test):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "hasattr":
                return True
            if isinstance(sub, ast.Attribute) and sub.attr == "built" and _is_self(sub.value):
                return True
            if (
                isinstance(sub, ast.Compare)
                and _is_self(getattr(sub.left, "value", None))
                and any(isinstance(op, (ast.Is, ast.IsNot)) for op in sub.ops)
            ):
                return True
    return False


def _is_self(node) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _part(call, layer_classes) -> tuple[str, str] | None:
    """(kind, class name) when the call creates a layer or variable."""
    if call.decorator or not isinstance(call.node, ast.Call):
        return None
    name = call.name
    if _is_keras_class_name(name) and keras_api(name) not in ("Layer", "layers.Layer"):
        return "layer", name.rpartition(".")[2]
    if call.local_class is not None and call.local_class.name in layer_classes:
        return "layer", call.local_class.name
    if api(name) == "Variable" or name in _VARIABLES:
        return "variable", "Variable"
    if call.method in _ADD_WEIGHT and _is_self(call.receiver):
        return "variable", f"self.{call.method}()"
    return None


def layers_created_in_call(module) -> list[Hit]:
    layer_classes = keras_layer_classes(module)
    if not layer_classes:
        return []
    found = []
    for call in module.calls:
        scope = call.scope
        if scope is None or scope.name != "call" or not scope.is_method or scope.cls is None:
            continue
        if scope.cls.name not in layer_classes or layer_classes[scope.cls.name] is not scope.cls:
            continue
        part = _part(call, layer_classes)
        if part is None or _guarded(call):
            continue
        kind, what = part
        made = f"a new `{what}` layer" if kind == "layer" else (
            f"a new variable with `{what}`" if what.startswith("self.") else "a new `tf.Variable`"
        )
        found.append(
            Hit(
                call.node,
                f"`{scope.qualname}()` creates {made} on every call: its weights start from fresh "
                "values each time and no optimizer ever trains them",
                ((scope.node, f"`{scope.cls.name}.call()` runs on every call of the layer"),),
            )
        )
    return found


_SEQUENTIAL = frozenset({"keras.Sequential", "keras.models.Sequential"})


def _given_name(node: ast.Call) -> str | None:
    for kw in node.keywords:
        if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            return kw.value.value
    return None


def _twice(made, consequence: str) -> list[Hit]:
    """``made``: (name, call node) in creation order; a hit at each name given a second time."""
    first: dict[str, ast.AST] = {}
    found = []
    for name, node in made:
        if name in first:
            found.append(
                Hit(
                    node,
                    f"layer name '{name}' is given to two layers of one model: {consequence}",
                    ((first[name], f"the first layer named '{name}' is created here"),),
                )
            )
        else:
            first[name] = node
    return found


def duplicate_layer_names(module) -> list[Hit]:
    """GL201's Keras form: one ``name=`` given to two layers made in ``__init__``/``build()`` of
    one Keras layer class, or listed in one ``keras.Sequential([...])``. Layers made in a loop
    and layers of separate functional models are left alone."""
    layer_classes = keras_layer_classes(module)
    by_class: dict[int, list] = {}
    found = []
    for call in module.calls:
        node = call.node
        if not isinstance(node, ast.Call) or call.decorator:
            continue
        if call.name in _SEQUENTIAL and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
            made = []
            for elt in node.args[0].elts:
                if isinstance(elt, ast.Call) and _is_keras_class_name(module.bindings.resolve(elt.func)):
                    name = _given_name(elt)
                    if name is not None:
                        made.append((name, elt))
            found.extend(_twice(made, "Keras refuses this Sequential model with a ValueError that names neither line"))
            continue
        scope = call.scope
        if not layer_classes or scope is None or not scope.is_method or scope.name not in ("__init__", "build"):
            continue  # a layer made in __init__/build() of a Keras layer class of the file, or none
        if call.loops or scope.cls is None or layer_classes.get(scope.cls.name) is not scope.cls:
            continue
        part = _part(call, layer_classes)
        name = _given_name(node) if part is not None else None
        if name is not None and part[0] == "layer":
            by_class.setdefault(id(scope.cls), []).append((name, node))
    for made in by_class.values():
        found.extend(
            _twice(
                sorted(made, key=lambda m: (m[1].lineno, m[1].col_offset)),
                "Keras keeps both, and their weights get the same paths in checkpoints and saved models",
            )
        )
    return found
