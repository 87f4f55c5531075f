"""Canonical TensorFlow API names, and resolving expressions to them through imports and aliases.

Rules match on canonical names, never on the text of the source: with ``import
tensorflow.compat.v1 as tf1``, ``tf1.Session`` resolves to ``tensorflow.compat.v1.Session``; with
``import tensorflow as tf`` the legacy TF1 spelling ``tf.Session`` resolves to the same name.

The canonical form of a TensorFlow name is its TF2 name when TF2 has it at that place
(``tensorflow.matmul``, also for ``tf.compat.v1.matmul``), else its ``tensorflow.compat.v1``
name. Keras names, through ``tf.keras``, ``keras`` or ``tf_keras``, become ``keras.…``.
"""

from __future__ import annotations

import ast
from typing import Any

from graphlint.static.model._v1names import V1_IN_NAMESPACE, V1_MODULES, V1_ROOT

_TF = "tensorflow"
_V1 = "tensorflow.compat.v1"
_KERAS_PREFIXES = (
    "tensorflow.keras",
    "tensorflow.compat.v1.keras",
    "tensorflow.compat.v2.keras",
    "tensorflow.python.keras",
    "tf_keras",
    "keras",
)


def _is_v1_only(rest: str) -> bool:
    parts = rest.split(".")
    head = parts[0]
    if head in V1_ROOT or head in V1_MODULES:
        return True
    names = V1_IN_NAMESPACE.get(head)
    return names is not None and len(parts) > 1 and parts[1] in names


_canonical: dict[str, str] = {}
_NAME, _ATTRIBUTE = ast.Name, ast.Attribute


def canonical(dotted: str) -> str:
    """The canonical spelling of a dotted API name (see the module docstring)."""
    found = _canonical.get(dotted)
    if found is None:
        if len(_canonical) > 100_000:  # a bound for a long-lived process
            _canonical.clear()
        found = _canonical[dotted] = _canonical_of(dotted)
    return found


def _canonical_of(dotted: str) -> str:
    for prefix in _KERAS_PREFIXES:
        if dotted == prefix or dotted.startswith(prefix + "."):
            return "keras" + dotted[len(prefix):]
    if dotted.startswith("tensorflow.compat.v2."):
        dotted = "tensorflow." + dotted[len("tensorflow.compat.v2."):]
    if dotted.startswith(_V1 + "."):
        rest = dotted[len(_V1) + 1:]
        return dotted if _is_v1_only(rest) else f"{_TF}.{rest}"
    if dotted.startswith(_TF + ".") and not dotted.startswith(("tensorflow.compat", "tensorflow.python")):
        rest = dotted[len(_TF) + 1:]
        if _is_v1_only(rest):
            return f"{_V1}.{rest}"
    return dotted


def api(name: str | None) -> str | None:
    """The part of a canonical TensorFlow name after ``tensorflow.`` / ``tensorflow.compat.v1.``."""
    if name is None:
        return None
    if name.startswith(_V1 + "."):
        return name[len(_V1) + 1:]
    if name.startswith(_TF + ".") and not name.startswith("tensorflow.compat."):
        return name[len(_TF) + 1:]
    return None


def keras_api(name: str | None) -> str | None:
    """The part of a canonical Keras name after ``keras.``."""
    if name is not None and name.startswith("keras."):
        return name[6:]
    return None


#: The names ``from keras.models import *`` (``tensorflow.keras.models``...) binds that make a
#: model: its constructors and loaders (a name an import binds before keeps its binding).
_KERAS_MODELS_STAR = ("Model", "Sequential", "load_model", "model_from_json", "model_from_yaml", "model_from_config", "clone_model")


class Bindings:
    """What the names bound by imports (and plain aliases like ``tf1 = tf.compat.v1``) refer to."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        #: ``from .pkg import name`` wherever it is (a function's lazy import too): local name ->
        #: (level, dotted target); the first binding of a name is kept
        self.relative: dict[str, tuple[int, str]] = {}

    def add_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.names[alias.asname] = alias.name
                else:
                    head = alias.name.split(".", 1)[0]
                    self.names[head] = head
            return
        if node.level:
            for alias in node.names:  # the user's own modules: :func:`project._relative_names`
                if alias.name != "*":
                    target = f"{node.module}.{alias.name}" if node.module else alias.name
                    self.relative.setdefault(alias.asname or alias.name, (node.level, target))
            return
        if not node.module:
            return
        for alias in node.names:
            if alias.name == "*":
                if canonical(node.module) == "keras.models":
                    for name in _KERAS_MODELS_STAR:  # ``from keras.models import *``: what it is for
                        self.names.setdefault(name, f"{node.module}.{name}")
                continue
            self.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def add_alias(self, target: str, value: ast.expr) -> None:
        """``target = <dotted name>``: an alias when the value resolves to an imported name."""
        dotted = self.dotted(value)
        if dotted is not None:
            self.names[target] = dotted

    def dotted(self, node: ast.expr) -> str | None:
        """The imported dotted name an expression spells (not canonicalized), if any."""
        e: Any = node  # `cls is _NAME` below narrows nothing for mypy
        cls = type(e)  # ast.parse makes exactly these classes, never subclasses
        if cls is _NAME:
            return self.names.get(e.id)
        if cls is not _ATTRIBUTE:
            return None
        attr, e = e.attr, e.value
        cls = type(e)
        if cls is _NAME:  # the commonest: ``tf.constant``, ``self.fc``
            base = self.names.get(e.id)
            return None if base is None else f"{base}.{attr}"
        while cls is _ATTRIBUTE:  # the root first: most chains (``self.a.b``) name no import
            e = e.value
            cls = type(e)
        if cls is not _NAME:
            return None
        base = self.names.get(e.id)
        if base is None:
            return None
        attrs = []
        e = node
        while type(e) is _ATTRIBUTE:
            attrs.append(e.attr)
            e = e.value
        attrs.append(base)
        attrs.reverse()
        return ".".join(attrs)

    def resolve(self, node: ast.expr) -> str | None:
        """The canonical API name an expression refers to, or None."""
        e: Any = node
        cls = type(e)
        if cls is _NAME:  # the commonest two (one per call of the file), as :meth:`dotted` reads them
            dotted = self.names.get(e.id)
        elif cls is _ATTRIBUTE and type(e.value) is _NAME:
            base = self.names.get(e.value.id)
            dotted = None if base is None else f"{base}.{e.attr}"
        else:
            dotted = self.dotted(node)
        if dotted is None:
            return None
        found = _canonical.get(dotted)
        return found if found is not None else canonical(dotted)
