"""GL201's static form, its Keras form only: one ``name=`` given to two layers made in
``__init__``/``build()`` of one Keras layer class, or listed in one ``keras.Sequential([...])``."""

from __future__ import annotations

import ast

from graphlint.rules.variable_renamed import VariableRenamed
from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model.keras_layers import forwards_name, is_keras_layer_class, keras_layer_classes, layer_part

from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from graphlint.static.model.module import Module


def check(module: Module, options: dict[str, Any]) -> list[Hit]:
    return [hit._replace(fix=VariableRenamed.keras_fix) for hit in once_per_line(duplicate_layer_names(module))]


_SEQUENTIAL = frozenset({"keras.Sequential", "keras.models.Sequential"})


def _given_name(node: ast.Call) -> str | None:
    for kw in node.keywords:
        if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            return kw.value.value
    return None


def _twice(made: Iterable[tuple[str, ast.expr]], consequence: str) -> list[Hit]:
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


def duplicate_layer_names(module: Module) -> list[Hit]:
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
                if isinstance(elt, ast.Call) and is_keras_layer_class(module.bindings.resolve(elt.func)):
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
        part = layer_part(call, layer_classes)
        name = _given_name(node) if part is not None else None
        if name is not None and call.local_class is not None and not forwards_name(call.local_class, layer_classes):
            continue  # the class keeps (or drops) the name: Keras names each object uniquely
        if name is not None and part is not None and part[0] == "layer":
            by_class.setdefault(id(scope.cls), []).append((name, node))
    for made in by_class.values():
        found.extend(
            _twice(
                sorted(made, key=lambda m: (m[1].lineno, m[1].col_offset)),
                "Keras keeps both, and their weights get the same paths in checkpoints and saved models",
            )
        )
    return found
