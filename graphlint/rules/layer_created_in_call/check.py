"""GL505's static form: layers and variables created in ``call()`` of a Keras layer or model
class (:mod:`graphlint.static.model.keras_layers`): in its method ``call``, a ``keras.layers``
class, a Keras layer class of the file, ``tf.Variable``/``keras.Variable`` or
``self.add_weight(...)`` constructed outside a guard (``if not hasattr(self, ...)``, ``if not
self.built``, ``if self.x is None``) is a hit when it creates state: a variable, a layer with
weights, or (Keras 3) a layer with a seed generator; a layer that creates none (``Flatten``,
``LeakyReLU``, pooling, a class of the file made only of those) loses nothing. ``__init__`` and
``build()`` are where they belong.
"""

from __future__ import annotations

import ast

from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model.keras_layers import SEED, is_self, keras_layer_classes, part_state

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphlint.static.model.module import Module
    from graphlint.static.model.scopes import CallSite


def _guarded(call: CallSite) -> bool:
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


def check(module: Module, options: dict[str, Any]) -> list[Hit]:
    return list(once_per_line(layers_created_in_call(module)))


def layers_created_in_call(module: Module) -> list[Hit]:
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
        part = part_state(call, module, layer_classes)
        if part is None or _guarded(call):
            continue
        kind, what, state = part
        if state == SEED:
            made = (
                f"a new `{what}` layer, and with it a new seed generator (a Keras 3 variable), on every call: "
                "under `tf.function` (as in `fit`) it fails with \"tf.function only supports singleton "
                "tf.Variables created on the first call\""
            )
        else:
            if kind == "layer":
                made = f"a new `{what}` layer with weights"
            elif what.startswith("self."):
                made = f"a new variable with `{what}`"
            else:
                made = "a new `tf.Variable`"
            made += " on every call: its weights start from fresh values each time and no optimizer ever trains them"
        found.append(
            Hit(
                call.node,
                f"`{scope.qualname}()` creates {made}",
                ((scope.node, f"`{scope.cls.name}.call()` runs on every call of the layer"),),
            )
        )
    return found
