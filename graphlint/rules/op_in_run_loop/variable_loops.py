"""Loops that walk the model's variables (GL102's exemption): a weight load assigns each
variable once (``for v, value in zip(tf.global_variables(), weights): sess.run(v.assign(value))``)
and an inspection reads each once (``for w in self.weights: sess.run(tf.shape(w))``) — one op
per variable, not one per step, unless an outer loop or a per-call function repeats the walk."""

from __future__ import annotations

import ast

from graphlint.static.model.rebuilds import builds_and_runs
from graphlint.static.model.repeats import bound_in, per_call


#: Methods of TF1 variables that add an op to the graph at every call.
ASSIGN_METHODS = frozenset(
    {
        "assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub",
        "scatter_mul", "scatter_div", "scatter_min", "scatter_max", "scatter_nd_update",
        "scatter_nd_add", "scatter_nd_sub", "batch_scatter_update", "count_up_to",
    }
)
ASSIGN_APIS = frozenset(
    {"assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub", "scatter_nd_update"}
)
def _root(expr):
    """The name an expression hangs from: ``v`` for ``v``, ``.lr`` for ``self.lr``."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        if isinstance(expr.value, ast.Name) and expr.value.id == "self":
            return "." + expr.attr
        return _root(expr.value)
    return None


def per_variable(module, loop, call) -> bool:
    """An assignment to a variable the loop itself binds: a weight load, once per variable —
    unless an outer loop (other than a walk of the same structure: ``for layer in weights:
    for name, value in weights[layer].items():``) or a per-call function repeats the load."""
    loops = [outer for outer in call.loops if not outer.is_comprehension]
    for outer, inner in zip(loops, loops[1:]):
        iterable = getattr(inner.node, "iter", None)
        target = getattr(outer.node, "target", None)
        if iterable is None or target is None:
            return False
        bound = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        if not any(isinstance(n, ast.Name) and n.id in bound for n in ast.walk(iterable)):
            return False  # the outer loop repeats the whole load
    if call.scope is not None and per_call(module, call.scope) is not None:
        # the function is what repeats the walk: GL101 names it (one cause, one finding)
        return builds_and_runs(module, call.scope) is not None
    if call.method in ASSIGN_METHODS and call.name is None:
        target = call.receiver
    elif call.api in ASSIGN_APIS and call.node.args:
        target = call.node.args[0]
    else:
        return _reads_each_variable(module, loop, call)
    bound = bound_in(module, loop)
    if isinstance(target, ast.Call):  # get_variable(name).assign(value): looked up per item
        return any(isinstance(n, ast.Name) and n.id in bound for n in ast.walk(target))
    root = _root(target)
    return root is not None and root in bound


#: Calls that list the graph's variables, and the attributes by which Keras objects list theirs.
_VARIABLE_LISTS = frozenset(
    {
        "tensorflow.compat.v1.trainable_variables", "tensorflow.compat.v1.global_variables",
        "tensorflow.compat.v1.local_variables", "tensorflow.compat.v1.model_variables",
        "tensorflow.compat.v1.all_variables",
    }
)
_VARIABLE_ATTRIBUTES = frozenset(
    {"trainable_variables", "variables", "weights", "trainable_weights", "non_trainable_weights", "non_trainable_variables"}
)
#: What makes a variable (the origin label of a name assigned from it).
_VARIABLE_MAKERS = frozenset({"tensorflow.Variable", "tensorflow.compat.v1.get_variable", "tensorflow.compat.v1.Variable"})


def _reads_each_variable(module, loop, call) -> bool:
    """An op on the loop's own item, in a loop over the model's variables (``for w in
    self.weights: sess.run(tf.shape(w))``, ``for v in tf.trainable_variables():``, the
    placeholder of a weight load ``tf.placeholder(v.dtype, v.get_shape())``): one op per
    variable, as a weight load — the graph does not grow with the steps of a run.
    A list of the user's (``self.weights``) counts when every value appended to it anywhere
    in the file was made by ``tf.Variable`` / ``get_variable``."""
    item = _variable_item(module, loop)
    if item is None:
        return False
    passed = [*call.node.args, *(k.value for k in call.node.keywords)]
    return any(isinstance(n, ast.Name) and n.id == item for arg in passed for n in ast.walk(arg))


def _variable_item(module, loop) -> str | None:
    """The name a loop binds to each of the model's variables: ``v`` in ``for v in
    tf.global_variables():`` (or ``for v, value in zip(tf.global_variables(), values):``)."""
    node = getattr(loop.node, "target", None)
    iterable = getattr(loop.node, "iter", None)
    if isinstance(node, ast.Tuple) and isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name):
        if iterable.func.id == "zip" and iterable.args and len(node.elts) == len(iterable.args):
            pairs = list(zip(node.elts, iterable.args))
        elif iterable.func.id == "enumerate" and iterable.args and len(node.elts) == 2:
            pairs = [(node.elts[1], iterable.args[0])]
        else:
            return None
        for target, source in pairs:
            if isinstance(target, ast.Name) and _lists_variables(module, source):
                return target.id
        return None
    if isinstance(node, ast.Name) and iterable is not None and _lists_variables(module, iterable):
        return node.id
    return None


def _lists_variables(module, iterable) -> bool:
    if isinstance(iterable, ast.Call):
        return module.bindings.resolve(iterable.func) in _VARIABLE_LISTS
    if isinstance(iterable, ast.Attribute) and iterable.attr in _VARIABLE_ATTRIBUTES:
        return True
    return _variables_only(module, iterable)


def _variables_only(module, iterable) -> bool:
    """Whether ``iterable`` (a name or ``self.attr``) is a list that only ever has variables
    appended to it, and has some. Once per list."""
    key = _list_key(iterable)
    if key is None:
        return False
    answers = module.cache.get("variables-only")
    if answers is None:
        answers = module.cache["variables-only"] = {}
    if key not in answers:
        answers[key] = _only_variables_appended(module, _appends(module).get(key, ()))
    return answers[key]


def _appends(module) -> dict:
    """``{list key: [its append calls]}`` of the file, once per module."""
    found = module.cache.get("appends")
    if found is None:
        appends: dict[str, list] = {}
        found = module.cache["appends"] = appends
        for c in module.calls:
            if c.method == "append" and c.name is None and c.receiver is not None:
                key = _list_key(c.receiver)
                if key is not None:
                    appends.setdefault(key, []).append(c)
    return found


def _only_variables_appended(module, appended) -> bool:
    if not appended:
        return False
    for c in appended:
        if len(c.node.args) != 1 or not isinstance(c.node.args[0], (ast.Name, ast.Call)):
            return False
        value = c.node.args[0]
        labels = {module.bindings.resolve(value.func)} if isinstance(value, ast.Call) else module.origins(value, c.scope)
        if not labels or not labels <= _VARIABLE_MAKERS:
            return False
    return True


def _list_key(expr):
    """``name`` for a plain name, ``.attr`` for ``self.attr``; None for anything else."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return "." + expr.attr
    return None
