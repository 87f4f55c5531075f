"""GL505's static form: layers and variables created in ``call()`` of a Keras layer or model
class (:mod:`graphlint.static.model.keras_layers`): in its method ``call``, a ``keras.layers``
class, a Keras layer class of the file, ``tf.Variable``/``keras.Variable`` or
``self.add_weight(...)`` constructed outside a guard (``if not hasattr(self, ...)``, ``if not
self.built``, ``if self.x is None``) is a hit; ``__init__`` and ``build()`` are where they belong.
"""

from __future__ import annotations

import ast

from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model.keras_layers import is_self, keras_layer_classes, layer_part


def _guarded(call) -> bool:
    """Inside an ``if`` that creates the part only once (hasattr / built / is None on self)."""
    for node, _ in call.ifs:
        for sub in ast.walk(node.test):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "hasattr":
                return True
            if isinstance(sub, ast.Attribute) and sub.attr == "built" and is_self(sub.value):
                return True
            if (
                isinstance(sub, ast.Compare)
                and is_self(getattr(sub.left, "value", None))
                and any(isinstance(op, (ast.Is, ast.IsNot)) for op in sub.ops)
            ):
                return True
    return False


def check(module, options) -> list[Hit]:
    return list(once_per_line(layers_created_in_call(module)))


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
        part = layer_part(call, layer_classes)
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
