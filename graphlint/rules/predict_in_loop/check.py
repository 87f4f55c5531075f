"""GL504's static form: Keras ``model.predict`` called again and again on one sample at a time.

The runtime counts ``predict`` calls per line whose input fits in one batch. Statically, a
call is reported only when the source shows all three: the receiver is a Keras model (made in
this file by ``keras.Sequential``/``keras.Model``/``load_model``/``clone_model``, by a class
of the file that derives from a Keras model, or ``self.model = self._build_model()`` with a
builder of the file that makes one), the input is one sample (``x[None]``,
``x[np.newaxis, ...]``, ``np.expand_dims(x, 0)``, ``np.reshape(x, [1, ...])``,
``x.reshape(1, ...)``, ``np.array([x])``, and those cast or scaled by a number, which keeps
the shape: ``.astype(...)``, ``np.float32(...)``, ``/ 255.0``; a name by its nearest binding before the call; a
parameter by what every caller passes: the RL agent's ``act(state)``), and
the call runs again and again (in a loop the source does not bound to ``max-calls`` runs, or
in a function that runs per call). ``model.predict(batch)`` per batch, ``model(x)``, a
scikit-learn ``predict`` and a call under a graph's ``as_default()`` (TF1 Keras, where
``model(x)`` would build ops: ``predict`` is the way there) stay silent.
"""

from __future__ import annotations

import ast

from graphlint.static.model.api import is_keras_model
from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model.models import builder, model_classes
from graphlint.static.model.repeats import guarded, per_call, runs_at_most
from graphlint.static.model.values import LEAVES, walk_scope

_LOADERS = frozenset({"keras.models.load_model", "keras.saving.load_model", "keras.models.clone_model"})
_EXPAND = frozenset({"numpy.expand_dims", "tensorflow.expand_dims"})
_RESHAPE = frozenset({"numpy.reshape", "tensorflow.reshape"})
_ARRAY = frozenset({"numpy.array", "numpy.asarray", "tensorflow.constant", "tensorflow.convert_to_tensor"})
_NEWAXIS = frozenset({"numpy.newaxis", "tensorflow.newaxis"})


def check(module, options) -> list[Hit]:
    return list(once_per_line(predict_in_loop(module, options)))


def predict_in_loop(module, options: dict) -> list[Hit]:
    """The ``predict`` calls on one sample that run again and again (see the module docstring)."""
    found = []
    limit = options.get("max-calls", 5)
    for call in module.calls:
        if call.method != "predict" or call.name is not None or call.receiver is None:
            continue
        node = call.node
        arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "x"), None)
        if arg is None or guarded(call.ifs) or call.under_graph_default():
            continue  # under a graph's as_default(): TF1 Keras, where model(x) would build ops
        why: str | None = None
        related: tuple = ()
        if call.loops and not runs_at_most(module, call, limit):
            why, related = "in a loop", ((call.loops[-1].node, "the loop"),)
        elif call.scope is not None:
            reason = per_call(module, call.scope)
            if reason is not None:
                why = f"each time {call.scope.display} runs: it {reason.text}"
                related = ((reason.site.node, "called here"),) if reason.site else ()
        if why is None or not _one_sample(module, arg, call.scope, call.line) or not _keras_model(module, call):
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
    """Whether the receiver of ``.predict`` was made (only) as a Keras model in this file: by a
    Keras constructor or loader, a class of the file deriving from a Keras model, or — for
    ``self.model`` — a method or function of the file that builds one (``self.model =
    self._build_model()``)."""
    receiver = call.receiver
    if isinstance(receiver, ast.Call):
        labels = {module.bindings.resolve(receiver.func) or "?"}
    else:
        labels = module.origins(receiver, call.scope)
    if labels and all(_is_model_label(module, label) for label in labels):
        return True
    if call.cls is None or not isinstance(receiver, ast.Attribute):
        return False
    if not (isinstance(receiver.value, ast.Name) and receiver.value.id == "self"):
        return False
    values = _self_assignments(module, call.cls).get(receiver.attr)
    return bool(values) and all(_builds_model(module, value) for value in values or ())


def _is_model_label(module, label: str) -> bool:
    return is_keras_model(label) or label in _LOADERS or (label.startswith("class:") and label[6:] in model_classes(module))


def _self_assignments(module, cls) -> dict:
    """``{attr: [value, ...]}`` of every ``self.attr = value`` in the class's methods."""
    key = ("self-assignments", id(cls))
    found = module.cache.get(key)
    if found is None:
        found = {}
        for method in cls.methods.values():
            for node in walk_scope(method.node.body, LEAVES):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                            found.setdefault(target.attr, []).append(node.value)
        module.cache[key] = found
    return found


def _builds_model(module, value) -> bool:
    """A call that makes a Keras model: a constructor or loader, or the user's builder."""
    if not isinstance(value, ast.Call):
        return False
    name = module.bindings.resolve(value.func)
    if name is not None:
        return _is_model_label(module, name)
    site = _sites(module).get(id(value))
    return site is not None and site.target is not None and builder(module, site.target, model_classes(module)) is not None


def _sites(module) -> dict:
    found = module.cache.get("sites-by-node")
    if found is None:
        found = module.cache["sites-by-node"] = {id(c.node): c for c in module.calls}
    return found


def _one_sample(module, expr, scope, line: int, depth: int = 0) -> bool:
    """Whether ``expr`` (read at ``line``) is visibly a batch of one sample (see the module
    docstring). A name counts by the binding before ``line`` nearest to it; a parameter by
    what every caller passes for it."""
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
            return bool(args) and isinstance(args[0], ast.List) and _one_sample(module, args[0], scope, line, depth)
        if name is None and isinstance(expr.func, ast.Attribute) and expr.func.attr == "reshape" and args:
            return _leads_with_one(args[0]) if len(args) == 1 else _is_int(args[0], 1)
        if name is None and isinstance(expr.func, ast.Attribute) and expr.func.attr == "astype":
            return _one_sample(module, expr.func.value, scope, line, depth)  # a cast keeps the shape
        if name in _CASTS and len(args) == 1:
            return _one_sample(module, args[0], scope, line, depth)
        return False
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _SCALAR_OPS):
        # ``np.expand_dims(frame, 0) / 255.0``, ``(row - mean) * scale``: a number keeps the shape
        if _is_number(expr.right):
            return _one_sample(module, expr.left, scope, line, depth)
        if _is_number(expr.left):
            return _one_sample(module, expr.right, scope, line, depth)
        return False
    if isinstance(expr, ast.Name) and depth < 2:
        binding = _binding_before(module, scope, expr.id, line)
        if binding is None:
            return False
        kind, value = binding
        if kind == "assign":
            return _one_sample(module, value, scope, value.lineno, depth + 1)
        if kind == "param" and scope is not None and scope.callers:
            return all(_passed_one_sample(module, scope, value, site, depth) for site in scope.callers)
    return False


def _passed_one_sample(module, fn, param: str, site, depth: int) -> bool:
    """Whether the call ``site`` of ``fn`` passes one sample for ``param``."""
    names = [a.arg for a in fn.node.args.posonlyargs + fn.node.args.args]
    if fn.is_method and names:
        names = names[1:]  # self: the receiver
    node = site.node
    arg = next((k.value for k in node.keywords if k.arg == param), None)
    if arg is None and param in names and names.index(param) < len(node.args):
        arg = node.args[names.index(param)]
    return arg is not None and not isinstance(arg, ast.Starred) and _one_sample(module, arg, site.scope, site.line, depth + 1)


def _binding_before(module, scope, name: str, line: int):
    """The binding of ``name`` in ``scope`` nearest before ``line``: ``("assign", value)`` for
    a plain ``name = value``, ``("param", name)`` for a parameter bound by no statement before
    it, ``("other", None)`` for any other binding (a loop target, unpacking, ``+=``...); None
    when the scope binds it nowhere before."""
    key = ("bindings-by-line", id(scope))
    table = module.cache.get(key)
    if table is None:
        table = {}
        body = scope.node.body if scope is not None else module.tree.body
        for node in walk_scope(body, LEAVES):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                table.setdefault(node.targets[0].id, []).append((node.lineno, "assign", node.value))
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.withitem, ast.NamedExpr)):
                targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None) or getattr(node, "optional_vars", None)]
                where = getattr(node, "lineno", None) or getattr(getattr(node, "target", None), "lineno", 0)
                for target in targets:
                    for n in ast.walk(target) if target is not None else ():
                        if isinstance(n, ast.Name):
                            table.setdefault(n.id, []).append((where, "other", None))
        module.cache[key] = table
    before = [b for b in table.get(name, ()) if b[0] < line]
    if before:
        _, kind, value = max(before, key=lambda b: b[0])
        return kind, value
    if scope is not None and name in scope.params:
        return "param", name
    return None


#: Casts that keep an array's shape.
_CASTS = frozenset({"numpy.float32", "numpy.float64", "numpy.float16", "numpy.int32", "numpy.uint8"})
_SCALAR_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv)


def _is_number(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_newaxis(module, node) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None
    return module.bindings.resolve(node) in _NEWAXIS


def _is_int(node, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _leads_with_one(shape) -> bool:
    return isinstance(shape, (ast.Tuple, ast.List)) and bool(shape.elts) and _is_int(shape.elts[0], 1)
