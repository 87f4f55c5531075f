"""Keras ``model.predict`` called again and again on one sample at a time (GL504's static form).

The runtime counts ``predict`` calls per line whose input fits in one batch. Statically, a
call is reported only when the source shows all three: the receiver is a Keras model (made in
this file by ``keras.Sequential``/``keras.Model``/``load_model``/``clone_model``, or by a class
of the file that derives from a Keras model), the input is one sample (``x[None]``,
``x[np.newaxis, ...]``, ``np.expand_dims(x, 0)``, ``np.reshape(x, [1, ...])``,
``x.reshape(1, ...)``, ``np.array([x])``, or a name the function assigns only from such), and
the call runs again and again (in a loop the source does not bound to ``max-calls`` runs, or
in a function that runs per call). ``model.predict(batch)`` per batch, ``model(x)``, a
scikit-learn ``predict`` and a call under a graph's ``as_default()`` (TF1 Keras, where
``model(x)`` would build ops: ``predict`` is the way there) stay silent.
"""

from __future__ import annotations

import ast

from graphlint.static.churn import _model_classes
from graphlint.static.hits import Hit
from graphlint.static.loop_counts import LEAVES, walk_scope
from graphlint.static.repeats import runs_at_most
from graphlint.static.module import guarded
from graphlint.static.tfapi import is_keras_model

_LOADERS = frozenset({"keras.models.load_model", "keras.saving.load_model", "keras.models.clone_model"})
_EXPAND = frozenset({"numpy.expand_dims", "tensorflow.expand_dims"})
_RESHAPE = frozenset({"numpy.reshape", "tensorflow.reshape"})
_ARRAY = frozenset({"numpy.array", "numpy.asarray", "tensorflow.constant", "tensorflow.convert_to_tensor"})
_NEWAXIS = frozenset({"numpy.newaxis", "tensorflow.newaxis"})


def predict_in_loop(module, options: dict) -> list[Hit]:
    """GL504's static form (see the module docstring)."""
    found = []
    limit = options.get("max-calls", 5)
    for call in module.calls:
        if call.method != "predict" or call.name is not None or call.receiver is None:
            continue
        node = call.node
        arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "x"), None)
        if arg is None or guarded(call.ifs) or call.under_graph_default():
            continue  # under a graph's as_default(): TF1 Keras, where model(x) would build ops
        why = related = None
        if call.loops and not runs_at_most(module, call, limit):
            why, related = "in a loop", ((call.loops[-1].node, "the loop"),)
        elif call.scope is not None:
            reason = module.per_call(call.scope)
            if reason is not None:
                why = f"each time {call.scope.display} runs: it {reason.text}"
                related = ((reason.site.node, "called here"),) if reason.site else ()
        if why is None or not _one_sample(module, arg, call.scope) or not _keras_model(module, call):
            continue
        found.append(
            Hit(
                node,
                f"`predict` on one sample {why}: every call sets up a data pipeline and callbacks for a "
                "single row (and may trace again), many times the cost of the model itself",
                related,
            )
        )
    return found


def _keras_model(module, call) -> bool:
    """Whether the receiver of ``.predict`` was made (only) as a Keras model in this file."""
    receiver = call.receiver
    if isinstance(receiver, ast.Call):
        labels = {module.bindings.resolve(receiver.func) or "?"}
    else:
        labels = module.origins(receiver, call.scope)
    classes = _model_classes(module)
    return bool(labels) and all(
        is_keras_model(label) or label in _LOADERS or (label.startswith("class:") and label[6:] in classes)
        for label in labels
    )


def _one_sample(module, expr, scope, depth: int = 0) -> bool:
    """Whether ``expr`` is visibly a batch of one sample (see the module docstring)."""
    if isinstance(expr, ast.Subscript):
        index = expr.slice
        first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
        return _is_newaxis(module, first)
    if isinstance(expr, ast.List):
        return len(expr.elts) == 1 and not isinstance(expr.elts[0], ast.Starred)
    if isinstance(expr, ast.Call):
        name = module.bindings.resolve(expr.func)
        args, keywords = expr.args, {k.arg: k.value for k in expr.keywords if k.arg}
        if name in _EXPAND:
            axis = args[1] if len(args) > 1 else keywords.get("axis")
            return _is_int(axis, 0)
        if name in _RESHAPE:
            shape = args[1] if len(args) > 1 else keywords.get("newshape", keywords.get("shape"))
            return _leads_with_one(shape)
        if name in _ARRAY:
            return bool(args) and _one_sample(module, args[0], scope, depth) and isinstance(args[0], ast.List)
        if name is None and isinstance(expr.func, ast.Attribute) and expr.func.attr == "reshape" and args:
            return _leads_with_one(args[0]) if len(args) == 1 else _is_int(args[0], 1)
        return False
    if isinstance(expr, ast.Name) and depth == 0:
        values = _assigned(module, scope, expr.id)
        return bool(values) and all(_one_sample(module, v, scope, depth + 1) for v in values)
    return False


def _assigned(module, scope, name: str) -> list | None:
    """The values a function (or the module body) assigns to ``name`` — None when it is also
    bound otherwise (a parameter, a loop target, an augmented or unpacked assignment)."""
    key = ("predict-assigned", id(scope))
    table = module.cache.get(key)
    if table is None:
        table = {}
        body = scope.node.body if scope is not None else module.tree.body
        for node in walk_scope(body, LEAVES):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                entry = table.setdefault(node.targets[0].id, [])
                if entry is not None:
                    entry.append(node.value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.withitem, ast.NamedExpr)):
                target = getattr(node, "target", None) or getattr(node, "optional_vars", None)
                for n in ast.walk(target) if target is not None else ():
                    if isinstance(n, ast.Name):
                        table[n.id] = None
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            table[n.id] = None
        if scope is not None:
            for param in scope.params:
                table[param] = None
        module.cache[key] = table
    return table.get(name)


def _is_newaxis(module, node) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None
    return module.bindings.resolve(node) in _NEWAXIS


def _is_int(node, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _leads_with_one(shape) -> bool:
    return isinstance(shape, (ast.Tuple, ast.List)) and bool(shape.elts) and _is_int(shape.elts[0], 1)
