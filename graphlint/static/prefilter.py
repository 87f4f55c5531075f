"""Which parsed files the static analysis can report on: decided from the file's imports.

Every file is parsed (a syntax error is GL001 wherever it is), but building the
:class:`~graphlint.static.module.Module` model and running the rules costs several times the
parse. A rule matches only names that the file's imports resolve to a TensorFlow, Keras or
JAX API (see :mod:`graphlint.static.names`), or a user's function or class that a call reaches
in another module of the checked tree (:mod:`graphlint.static.project`). So a file needs the
analysis when one of its imports, wherever it sits:

* binds a name whose dotted target names ``tensorflow``, ``keras`` or ``jax`` (``tf_keras``,
  ``jax.numpy``, ``tensorflow_hub`` too) — except TensorFlow's own internals
  (``from tensorflow.python.ops import array_ops``, ``tensorflow.core.protobuf``): those
  targets never canonicalise to a public API name, and no rule matches them (an attribute
  path reaches ``tensorflow.python.keras``, Keras, only from ``tensorflow.python`` itself,
  and then the file spells ``keras``);
* is relative (``from . import model``), or names a module whose file lies beside the checked
  file, where :func:`graphlint.static.project.find_module` looks for it.

Never stricter than the analysis: the same import statements :class:`Module` binds names
from are read here (also inside functions, ``if``, ``try``, ``with`` and ``match``), and a test
compares the result of this path with the full analysis of every file on the samples and on
a corpus of real code (``tests/test_static_speed_paths.py``).
"""

from __future__ import annotations

import ast
import os
import re

from graphlint.static import project
from graphlint.static.scopes import NESTED

_FAMILY = re.compile(r"tensorflow|keras|jax")
#: TensorFlow's own packages, not its public API (``tf.core`` does not exist; ``tf.tools``,
#: ``tf.security`` and ``tf.dtensor`` are only the packages, left as attributes by the import).
_INTERNAL = frozenset({"python", "core", "compiler", "security", "tools", "dtensor"})
_IMPORTS = (ast.Import, ast.ImportFrom)


def imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, where :class:`Module` collects its bindings from (the same
    statements, in the same order)."""
    found = []
    stack = list(reversed(tree.body))
    pop, push, nested = stack.pop, stack.extend, NESTED.get
    while stack:
        node = pop()
        cls = type(node)
        if cls in _IMPORTS:
            found.append(node)
            continue
        names = nested(cls)
        if names:
            for name in names:
                children = getattr(node, name)
                if children:
                    push(reversed(children))
    return found


def _bound(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted targets the import binds names to (as :class:`~names.Bindings` does)."""
    if isinstance(node, ast.Import):
        return [alias.name if alias.asname else alias.name.split(".", 1)[0] for alias in node.names]
    module = node.module or ""
    return [f"{module}.{alias.name}" if alias.name != "*" else module for alias in node.names]


def _named(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The full dotted names the import mentions (each prefix may be a user's module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    module = node.module or ""
    return [f"{module}.{alias.name}" if alias.name != "*" else module for alias in node.names]


def _framework(target: str, data: bytes) -> bool:
    if not _FAMILY.search(target):
        return False
    head, _, rest = target.partition(".")
    if head == "tensorflow" and rest.split(".", 1)[0] in _INTERNAL and "keras" not in target:
        # no attribute path from here reaches a public name, but ``python.keras.layers``
        # from ``tensorflow.python`` itself (tensorflow.python.keras is Keras)
        return rest == "python" and b"keras" in data
    return True


def lookups(tree: ast.Module, nodes: list | None = None) -> list[str]:
    """Each dotted name (and its prefixes) the file's absolute imports may find a user's
    module under: ``import a.b`` / ``from a.b import c`` look for ``a``, ``a.b``, ``a.b.c``.
    ``nodes``: the file's import statements, when :func:`imports` already found them."""
    found: dict[str, None] = {}
    for node in imports(tree) if nodes is None else nodes:
        if isinstance(node, ast.ImportFrom) and node.level:
            continue
        for dotted in _named(node):
            parts = dotted.split(".")
            if parts[0] and parts[0] not in project._LIBRARIES:
                for cut in range(1, len(parts) + 1):
                    found[".".join(parts[:cut])] = None
    return list(found)


def probes(path: str, tree: ast.Module, nodes: list | None = None) -> list[tuple[str, int, str, str | None]]:
    """The look-ups of the file's absolute imports, as the cache stores them: (file, level,
    dotted, the file found or None)."""
    here = os.path.abspath(path)
    return [(here, 0, dotted, project.module_file(path, dotted, 0, here)) for dotted in lookups(tree, nodes)]


def decide(path: str, tree: ast.Module, data: bytes) -> tuple[bool, list]:
    """Whether the analysis of this parsed file can report anything (see the module doc),
    and the look-ups that decided it (:func:`probes`)."""
    nodes = imports(tree)
    looked = probes(path, tree, nodes)
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level:
            return True, looked  # the user's own package
        if any(_framework(target, data) for target in _bound(node)):
            return True, looked
    return any(hit is not None for *_, hit in looked), looked


def relevant(path: str, tree: ast.Module, data: bytes) -> bool:
    """Whether the analysis of this parsed file can report anything (see the module doc)."""
    return decide(path, tree, data)[0]
