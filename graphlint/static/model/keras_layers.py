"""Keras layer classes of the file and the calls that make a layer or a variable: what GL505
(a layer made in ``call()``) and GL201's Keras form (one name given to two layers) read.

A class is a Keras layer when one of its bases resolves to ``keras.Layer``/``keras.Model``/
``keras.Sequential`` or a ``keras.layers`` class (through ``tf.keras``, ``keras`` or ``tf_keras``),
or to a class of the same file that is one.
"""

from __future__ import annotations

import ast

from graphlint.static.model.names import api, keras_api

_MODEL_BASES = frozenset({"Layer", "Model", "Sequential", "layers.Layer", "models.Model", "models.Sequential"})
_NOT_LAYERS = frozenset({"Input", "InputSpec"})
_VARIABLES = frozenset({"keras.Variable", "keras.variables.Variable"})
_ADD_WEIGHT = frozenset({"add_weight", "add_variable"})


def is_keras_layer_class(name: str | None) -> bool:
    """Whether a canonical name is a Keras layer or model class (``keras.layers.Dense``, ``keras.Model``)."""
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
            if any(is_keras_layer_class(b) for b in cls.bases) or any(b in found for b in local):
                found[name] = cls
                changed = True
    return found


def is_self(node) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def layer_part(call, layer_classes) -> tuple[str, str] | None:
    """(kind, class name) when the call creates a layer or variable."""
    if call.decorator or not isinstance(call.node, ast.Call):
        return None
    name = call.name
    if is_keras_layer_class(name) and keras_api(name) not in ("Layer", "layers.Layer"):
        return "layer", name.rpartition(".")[2]
    if call.local_class is not None and call.local_class.name in layer_classes:
        return "layer", call.local_class.name
    if api(name) == "Variable" or name in _VARIABLES:
        return "variable", "Variable"
    if call.method in _ADD_WEIGHT and is_self(call.receiver):
        return "variable", f"self.{call.method}()"
    return None


