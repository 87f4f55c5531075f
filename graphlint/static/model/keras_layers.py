"""Keras layer classes of the file and the calls that make a layer or a variable: what GL505
(a layer made in ``call()``) and GL201's Keras form (one name given to two layers) read.

A class is a Keras layer when one of its bases resolves to ``keras.Layer``/``keras.Model``/
``keras.Sequential`` or a ``keras.layers`` class (through ``tf.keras``, ``keras`` or ``tf_keras``),
or to a class of the same file that is one.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphlint.static.model.names import api, keras_api

if TYPE_CHECKING:
    from graphlint.static.model.module import Module
    from graphlint.static.model.scopes import CallSite, ClassInfo

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


def keras_layer_classes(module: Module) -> dict:
    """The file's classes that derive (directly or through each other) from a Keras layer.
    Once per module."""
    found = module.cache.get("keras-layer-classes")
    if found is None:
        found = module.cache["keras-layer-classes"] = _keras_layer_classes(module)
    return found


def _keras_layer_classes(module: Module) -> dict[str, ClassInfo]:
    found: dict[str, ClassInfo] = {}
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


def is_self(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def layer_part(call: CallSite, layer_classes: dict[str, ClassInfo]) -> tuple[str, str] | None:
    """(kind, class name) when the call creates a layer or variable."""
    if call.decorator or not isinstance(call.node, ast.Call):
        return None
    name = call.name
    if name is not None and is_keras_layer_class(name) and keras_api(name) not in ("Layer", "layers.Layer"):
        return "layer", name.rpartition(".")[2]
    if call.local_class is not None and call.local_class.name in layer_classes:
        return "layer", call.local_class.name
    if api(name) == "Variable" or name in _VARIABLES:
        return "variable", "Variable"
    if call.method in _ADD_WEIGHT and is_self(call.receiver):
        return "variable", f"self.{call.method}()"
    return None




# -- what a layer made in call() creates ----------------------------------------------------------
#: Keras layers that create no variable at all, built or not (checked on Keras 3.15 and tf-keras
#: 2.21: ``layer.variables`` empty after a call): activations, reshaping, padding, cropping,
#: pooling, merging. Made anew in ``call()``, they lose nothing.
_STATELESS_LAYERS = frozenset(
    {
        "Activation", "ReLU", "LeakyReLU", "ELU", "Softmax", "ThresholdedReLU",
        "Reshape", "Flatten", "Permute", "RepeatVector", "Lambda", "Identity", "InputLayer",
        "Masking", "ActivityRegularization", "Rescaling", "Resizing", "CenterCrop",
        "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot",
    }
)
_STATELESS_PREFIXES = (
    "Cropping", "UpSampling", "ZeroPadding", "MaxPooling", "AveragePooling", "MaxPool", "AvgPool",
    "GlobalMaxPooling", "GlobalAveragePooling", "GlobalMaxPool", "GlobalAvgPool",
)
#: Layers whose only state is a seed generator: in Keras 3 (``keras``, and ``tf.keras`` from TF
#: 2.16) a variable made in ``__init__``, so a second ``tf.function`` trace (``fit``) fails with
#: "tf.function only supports singleton tf.Variables"; tf-keras makes none.
_SEEDED_LAYERS = frozenset(
    {"Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianDropout",
     "GaussianNoise", "AlphaDropout"}
)
WEIGHTS, SEED = "weights", "seed generator"


def keras_layer_state(class_name: str, legacy: bool) -> str | None:
    """What a Keras layer class (its last name) creates: :data:`WEIGHTS`, :data:`SEED` or None
    (nothing); ``legacy``: spelled through ``tf_keras``. A layer not known to be stateless has
    weights."""
    if class_name in _STATELESS_LAYERS or class_name.startswith(_STATELESS_PREFIXES):
        return None
    if class_name in _SEEDED_LAYERS:
        return None if legacy else SEED
    return WEIGHTS


def is_legacy_keras(call: CallSite, module: Module) -> bool:
    """The call's callee is spelled through ``tf_keras`` (Keras 2)."""
    dotted = module.bindings.dotted(call.node.func) if isinstance(call.node, ast.Call) else None
    return dotted is not None and dotted.split(".", 1)[0] == "tf_keras"


def part_state(call: CallSite, module: Module, layer_classes: dict[str, ClassInfo]) -> tuple[str, str, str] | None:
    """(kind, class name, state) when the call creates a layer or variable that holds state:
    a layer with weights or (Keras 3) a seed generator, a variable; None for a layer that
    creates none (``Flatten``, ``LeakyReLU``, pooling, your own layer made only of those)."""
    part = layer_part(call, layer_classes)
    if part is None:
        return None
    kind, what = part
    if kind == "variable":
        return kind, what, "variable"
    if call.local_class is not None and call.local_class.name in layer_classes:
        state = _local_class_state(call.local_class, module, layer_classes, set())
    else:
        state = keras_layer_state(what, is_legacy_keras(call, module))
    return None if state is None else (kind, what, state)


def _local_class_state(cls: ClassInfo, module: Module, layer_classes: dict[str, ClassInfo], seen: set[int]) -> str | None:
    """What the file's own layer class creates: the first state a part made in its body, or a
    base class, holds (weights before a seed generator)."""
    if id(cls) in seen:
        return None
    seen.add(id(cls))
    states = set()
    for base, node in zip(cls.bases, cls.node.bases):
        if isinstance(node, ast.Name) and node.id in layer_classes:
            states.add(_local_class_state(layer_classes[node.id], module, layer_classes, seen))
        elif is_keras_layer_class(base) and keras_api(base) not in _MODEL_BASES:
            states.add(keras_layer_state(base.rpartition(".")[2], False))
    for call in module.calls:
        if call.cls is not cls:
            continue
        part = layer_part(call, layer_classes)
        if part is None:
            continue
        if part[0] == "variable":
            states.add(WEIGHTS)
        elif call.local_class is not None and call.local_class.name in layer_classes:
            states.add(_local_class_state(call.local_class, module, layer_classes, seen))
        else:
            states.add(keras_layer_state(part[1], is_legacy_keras(call, module)))
    return WEIGHTS if WEIGHTS in states else SEED if SEED in states else None


def forwards_name(cls: ClassInfo, layer_classes: dict[str, ClassInfo], seen: set[int] | None = None) -> bool:
    """Whether the file's own layer class hands a ``name=`` it is given on to Keras (its
    ``__init__`` passes ``name`` or ``**kwargs`` to ``super().__init__``, or it has no
    ``__init__`` of its own). A class that keeps it for itself, or drops it, lets Keras make a
    unique name for each object."""
    seen = set() if seen is None else seen
    if id(cls) in seen:
        return True
    seen.add(id(cls))
    init = next(
        (s for s in cls.node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"),
        None,
    )
    if init is None:
        local = [layer_classes[b.id] for b in cls.node.bases if isinstance(b, ast.Name) and b.id in layer_classes]
        return all(forwards_name(base, layer_classes, seen) for base in local)
    args = init.args
    named = any(a.arg == "name" for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
    kwargs = args.kwarg.arg if args.kwarg is not None and not named else None
    for node in ast.walk(init):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"):
            continue
        passed = [*node.args, *(k.value for k in node.keywords)]
        if named and any(isinstance(v, ast.Name) and v.id == "name" for v in passed):
            return True
        if named and any(isinstance(v, ast.Starred) for v in node.args):
            return True
        if kwargs is not None and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwargs for k in node.keywords):
            return True
    return False
