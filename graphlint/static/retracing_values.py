"""What a value in a loop is, as ``tf.function`` keys traces on it: a Python number that changes
per iteration (and how many values it can take), a list that grows, a new object, an array whose
shape follows the loop — or none of these (a tensor, a constant, something unknown).

Used by :mod:`graphlint.static.retracing`. Unknown stays unknown: a name whose every assignment is
not visibly a Python number is never taken for one.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: Names whose attributes are settings: Python values (``args.lr``, ``FLAGS.batch_size``).
CONFIG_NAMES = frozenset({"args", "FLAGS", "flags", "cfg", "config", "hparams", "opt", "opts"})
_NUMBER_FUNCS = frozenset({"float", "int", "round", "abs", "min", "max", "pow", "divmod"})
_RANGES = frozenset({"range", "trange", "tqdm.trange", "tqdm.auto.trange", "six.moves.range", "builtins.range"})
_WRAPPERS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "iter", "list"})
_GROW = frozenset({"append", "extend", "insert"})
#: Array constructors: where their shape argument is (position, keyword).
_ARRAYS = {
    "numpy.zeros": (0, "shape"), "numpy.ones": (0, "shape"), "numpy.empty": (0, "shape"),
    "numpy.full": (0, "shape"), "numpy.random.rand": (None, None), "numpy.random.randn": (None, None),
    "numpy.random.random": (0, "size"), "numpy.random.normal": (2, "size"),
    "numpy.random.uniform": (2, "size"), "numpy.random.randint": (2, "size"),
    "tensorflow.zeros": (0, "shape"), "tensorflow.ones": (0, "shape"), "tensorflow.fill": (0, "dims"),
    "tensorflow.random.normal": (0, "shape"), "tensorflow.random.uniform": (0, "shape"),
}
_NOT_BY_IDENTITY = ("NamedTuple", "ExtensionType", "Enum", "IntEnum")


@dataclass(frozen=True)
class Var:
    """What a value is: ``kind`` value/length/object/shape (or const), how many values it takes
    (None: unbounded), the loop that makes it change, and a short description."""

    kind: str
    bound: int | None = None
    loop: ast.AST | None = None
    what: str = ""
    source: str = ""  # the loop variable or counter it follows

    @property
    def varying(self) -> bool:
        return self.kind != "const"


CONST = Var("const", 1)


def _name(module, func) -> str | None:
    dotted = module.bindings.dotted(func)
    if dotted is not None:
        return dotted
    return func.id if isinstance(func, ast.Name) else None


def walk_scope(body):
    """The nodes of a block, not descending into nested defs, classes or lambdas."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in reversed(list(ast.iter_child_nodes(node))) if not isinstance(c, _SCOPES))


def assignments(module, scope) -> dict:
    """Every binding of a plain name in a scope: name -> [(kind, value node or None)]."""
    key = ("retracing.assign", id(scope))
    if key in module.cache:
        return module.cache[key]
    out: dict = {}
    body = scope.node.body if scope is not None else module.tree.body
    for node in walk_scope(body):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                _bind(out, t, "=" if isinstance(t, ast.Name) else "?", node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            _bind(out, node.target, "=", node.value)
        elif isinstance(node, ast.AugAssign):
            _bind(out, node.target, "+=", node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            _bind(out, node.target, "?", None)
        elif isinstance(node, (ast.withitem,)) and node.optional_vars is not None:
            _bind(out, node.optional_vars, "?", None)
        elif isinstance(node, ast.NamedExpr):
            _bind(out, node.target, "=", node.value)
    if scope is not None:
        for p in scope.params:
            out.setdefault(p, []).append(("?", None))
    module.cache[key] = out
    return out


def _bind(out, target, kind, value):
    if isinstance(target, ast.Name):
        out.setdefault(target.id, []).append((kind, value))
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _bind(out, elt, "?", None)
    elif isinstance(target, ast.Starred):
        _bind(out, target.value, "?", None)


def const_int(module, scope, expr, depth=0) -> int | None:
    """An int the source fixes: a literal, or a name bound once to one (in the scope or module)."""
    if depth > 8:
        return None
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return expr.value
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        v = const_int(module, scope, expr.operand, depth + 1)
        return -v if v is not None else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        a, b = const_int(module, scope, expr.left, depth + 1), const_int(module, scope, expr.right, depth + 1)
        if a is None or b is None or (isinstance(expr.op, ast.FloorDiv) and b == 0):
            return None
        return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}.get(type(expr.op), a // b if b else 0)
    if isinstance(expr, ast.Name):
        for s in (scope, None) if scope is not None else (None,):
            found = assignments(module, s).get(expr.id)
            if found:
                if len(found) == 1 and found[0][0] == "=":
                    return const_int(module, s, found[0][1], depth + 1)
                return None
    return None


def _length(module, scope, expr) -> int | None:
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)) and not any(isinstance(e, ast.Starred) for e in expr.elts):
        return len(expr.elts)
    if isinstance(expr, ast.Call) and _name(module, expr.func) in _RANGES:
        return _range_len(module, scope, expr)
    return None


def _range_len(module, scope, call) -> int | None:
    args = [const_int(module, scope, a) for a in call.args]
    if not args or None in args or len(args) > 3 or call.keywords:
        return None
    try:
        return len(range(*args))
    except ValueError:
        return None


def loop_values(module, target, iterable, loop=None, scope=None) -> dict:
    """The names a ``for`` target binds that take Python numbers, and ``__count__``: how many
    times the loop runs when the source fixes it."""
    it = iterable
    while isinstance(it, ast.Call) and _name(module, it.func) in _WRAPPERS and it.args:
        it = it.args[0]
    out: dict = {"__count__": None}
    if isinstance(it, ast.Call) and _name(module, it.func) in _RANGES:
        count = out["__count__"] = _range_len(module, scope, it)
        if isinstance(target, ast.Name):
            out[target.id] = Var("value", count, loop, f"the loop variable of `{ast.unparse(it)}`", target.id)
    elif isinstance(it, ast.Call) and _name(module, it.func) == "enumerate" and it.args:
        count = out["__count__"] = _length(module, scope, it.args[0])
        if isinstance(target, (ast.Tuple, ast.List)) and target.elts and isinstance(target.elts[0], ast.Name):
            out[target.elts[0].id] = Var("value", count, loop, "the index of `enumerate`", target.elts[0].id)
    elif isinstance(it, (ast.List, ast.Tuple, ast.Set)):
        count = out["__count__"] = _length(module, scope, it)
        if count is not None and isinstance(target, ast.Name) and all(isinstance(e, ast.Constant) for e in it.elts):
            distinct = len({repr(e.value) for e in it.elts})
            out[target.id] = Var("value", distinct, loop, f"the loop variable over {distinct} literal values", target.id)
    return out


class Values:
    """The values around one call site: its loops' variables and what the loops assign."""

    def __init__(self, module, site):
        self.module, self.scope = module, site.scope
        self.env: dict[str, Var] = {}
        self.opaque: set[str] = set()  # assigned in the loop, not visibly a Python value
        self.grown: dict[str, ast.AST] = {}  # lists appended to in the loop -> the loop
        for loop in site.loops:
            node = loop.node
            gens = node.generators if hasattr(node, "generators") else [node] if hasattr(node, "target") else []
            for gen in gens:
                found = loop_values(module, gen.target, gen.iter, node, self.scope)
                found.pop("__count__")
                for t in ast.walk(gen.target):
                    if isinstance(t, ast.Name) and t.id not in found:
                        self.opaque.add(t.id)
                self.env.update(found)
        outer = site.loops[0].node
        if isinstance(outer, _LOOPS):
            self._assigned_in(outer, site.loops)

    def _assigned_in(self, outer, loops) -> None:
        binds: dict[str, list] = {}
        for node in walk_scope(outer.body):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                binds.setdefault(node.targets[0].id, []).append(("=", node.value, node))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                binds.setdefault(node.target.id, []).append(("+=", node.value, node))
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.withitem, ast.comprehension)):
                targets = node.targets if isinstance(node, ast.Assign) else [
                    getattr(node, "target", None) or getattr(node, "optional_vars", None)
                ]
                for t in targets:
                    for n in ast.walk(t) if t is not None else ():
                        if isinstance(n, ast.Name) and n.id not in self.env:
                            self.opaque.add(n.id)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _GROW
                and isinstance(node.func.value, ast.Name)
            ):
                self.grown.setdefault(node.func.value.id, outer)
        for _ in range(2):  # names computed from names computed in the loop
            for name, entries in binds.items():
                self.env.pop(name, None)
                vars_ = []
                for kind, value, stmt in entries:
                    var = self.argument(value) if kind == "=" else self.number(value)
                    if var is None or (kind == "+=" and (var.kind not in ("const", "value") or not self._known_number(name))):
                        vars_ = None
                        break
                    if kind == "+=":
                        var = Var("value", None, _innermost(loops, stmt) or outer, f"a counter (`{name} += ...`)", name)
                    vars_.append(var)
                varying = [v for v in vars_ or () if v.varying]
                if vars_ and varying:
                    first = varying[0]
                    self.env[name] = first if len(varying) == 1 else Var(first.kind, None, first.loop, first.what, first.source)
                    self.opaque.discard(name)
                else:
                    self.opaque.add(name)

    # -- Python numbers ------------------------------------------------------------------------
    def number(self, e) -> Var | None:
        """A Python number (or bool, or str): CONST, a varying Var of kind value, or None."""
        if isinstance(e, ast.Constant):
            return CONST if e.value is not None and not isinstance(e.value, bytes) else None
        if isinstance(e, ast.Name):
            if e.id in self.env:
                var = self.env[e.id]
                return var if var.kind == "value" else None
            return CONST if e.id not in self.opaque and self._known_number(e.id) else None
        if isinstance(e, ast.Attribute):
            return CONST if isinstance(e.value, ast.Name) and e.value.id in CONFIG_NAMES else None
        if isinstance(e, ast.BinOp):
            return self._combine([self.number(e.left), self.number(e.right)], e)
        if isinstance(e, ast.UnaryOp):
            var = self.number(e.operand)
            return _flag(var) if isinstance(e.op, ast.Not) else var
        if isinstance(e, ast.Compare):
            return _flag(self._combine([self.number(x) for x in [e.left, *e.comparators]], e))
        if isinstance(e, ast.BoolOp):
            return _flag(self._combine([self.number(x) for x in e.values], e))
        if isinstance(e, ast.IfExp):
            a, b = self.number(e.body), self.number(e.orelse)
            if a is None or b is None:
                return None
            if not (a.varying or b.varying):
                return Var("value", 2, self._loop_of(e.test), "a value chosen per iteration") if self._changes(e.test) else CONST
            return self._combine([a, b], e)
        if isinstance(e, ast.Call):
            name = _name(self.module, e.func)
            if name in _NUMBER_FUNCS or (name or "").startswith("math."):
                args = [self.number(a) for a in e.args]
                if None in args and name in ("float", "int", "round") and len(e.args) >= 1 and self._changes(e.args[0]):
                    return Var("value", None, self._loop_of(e.args[0]), "a Python number made from a value of the loop")
                return self._combine(args, e)
            if isinstance(e.func, ast.Attribute) and e.func.attr == "item" and not e.args and self._changes(e.func.value):
                return Var("value", None, self._loop_of(e.func.value), "a Python number (`.item()`) of the loop")
        return None

    def _combine(self, parts, e) -> Var | None:
        if not parts or None in parts:
            return None
        varying = [p for p in parts if p.varying]
        if not varying:
            return CONST
        first = varying[0]
        what = f"a Python number computed from `{first.source}`" if first.source else first.what
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mod):
            k = const_int(self.module, self.scope, e.right)
            if k is not None and not parts[1].varying:
                bound = min(abs(k), first.bound) if first.bound is not None else abs(k)
                return Var("value", bound, first.loop, what, first.source)
        bound = 1
        for v in varying:
            bound = None if bound is None or v.bound is None else bound * v.bound
        return Var("value", bound, first.loop, what, first.source)

    def _known_number(self, name: str) -> bool:
        scopes = [self.scope, None] if self.scope is not None else [None]
        for s in scopes:
            found = assignments(self.module, s).get(name)
            if found:
                return all((k == "=" and _is_literal_number(v)) or k == "+=" for k, v in found)
        return False

    def _changes(self, e) -> bool:
        return any(isinstance(n, ast.Name) and (n.id in self.env or n.id in self.opaque) for n in ast.walk(e))

    def _loop_of(self, e):
        for n in ast.walk(e):
            if isinstance(n, ast.Name) and n.id in self.env:
                return self.env[n.id].loop
        return None

    # -- arguments -----------------------------------------------------------------------------
    def argument(self, e) -> Var | None:
        """What an argument is to tf.function's trace cache: a varying Var, CONST, or None."""
        var = self.number(e)
        if var is not None:
            return var
        m = self.module
        if isinstance(e, ast.Name):
            if e.id in self.env:
                return self.env[e.id]
            if e.id in self.grown and e.id not in self.opaque and self._is_list_outside(e.id):
                return Var("length", None, self.grown[e.id], f"a list that grows in the loop (`{e.id}.append`)")
            return None
        if isinstance(e, ast.Lambda):
            return Var("object", None, None, "a new lambda on every iteration")
        if isinstance(e, (ast.List, ast.Tuple)):
            parts = [self.argument(x) for x in e.elts]
            varying = [p for p in parts if p is not None and p.varying]
            return varying[0] if varying else None
        if isinstance(e, ast.Call):
            name = _name(m, e.func)
            cls = m.classes.get(e.func.id) if isinstance(e.func, ast.Name) else None
            if cls is not None and not _by_value(cls):
                return Var("object", None, None, f"a new `{cls.name}` object on every iteration")
            if name == "functools.partial" or name == "partial":
                return Var("object", None, None, "a new `functools.partial` object on every iteration")
            shape = _shape_arg(m, name, e)
            if shape is not None:
                sizes = [self.env[n.id] for n in ast.walk(shape) if isinstance(n, ast.Name) and n.id in self.env]
                sizes = [v for v in sizes if v.kind == "value"]
                if sizes:
                    return Var(
                        "shape", sizes[0].bound, sizes[0].loop,
                        f"an array whose shape `{ast.unparse(shape)}` follows `{sizes[0].source}`", sizes[0].source,
                    )
            if name == "list" and len(e.args) == 1 and isinstance(e.args[0], ast.Call):
                inner = e.args[0]
                if _name(m, inner.func) in _RANGES and any(self._varying_int(a) for a in inner.args):
                    return Var("length", None, self._loop_of(inner), "a list whose length follows the loop")
        if isinstance(e, ast.ListComp) and len(e.generators) == 1:
            it = e.generators[0].iter
            if isinstance(it, ast.Call) and _name(m, it.func) in _RANGES and any(self._varying_int(a) for a in it.args):
                return Var("length", None, self._loop_of(it), "a list whose length follows the loop")
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult) and isinstance(e.left, ast.List) and self._varying_int(e.right):
            return Var("length", None, self._loop_of(e.right), "a list whose length follows the loop")
        return None

    def _varying_int(self, e) -> bool:
        var = self.number(e)
        return var is not None and var.varying

    def _is_list_outside(self, name: str) -> bool:
        found = assignments(self.module, self.scope).get(name) or assignments(self.module, None).get(name) or []
        return bool(found) and all(
            k == "=" and (isinstance(v, ast.List) or (isinstance(v, ast.Call) and _name(self.module, v.func) == "list"))
            for k, v in found
        )


def _flag(var: Var | None) -> Var | None:
    if var is None or not var.varying:
        return var
    return Var("value", 2, var.loop, f"a flag computed from `{var.source}`", var.source)


def _is_literal_number(v) -> bool:
    """A Python number (or string) the source shows: literals, settings, ``float(...)``."""
    if isinstance(v, ast.Constant):
        return isinstance(v.value, (int, float, str))
    if isinstance(v, ast.Attribute):
        return isinstance(v.value, ast.Name) and v.value.id in CONFIG_NAMES
    if isinstance(v, ast.Call):
        return isinstance(v.func, ast.Name) and v.func.id in ("float", "int")
    if isinstance(v, ast.UnaryOp):
        return _is_literal_number(v.operand)
    if isinstance(v, ast.BinOp):
        return _is_literal_number(v.left) and _is_literal_number(v.right)
    return False


def _by_value(cls) -> bool:
    """A class tf.function compares by value (a NamedTuple, an ExtensionType), not identity."""
    names = {ast.unparse(b).rsplit(".", 1)[-1] for b in cls.node.bases}
    decorated = {ast.unparse(d).split("(")[0] for d in cls.node.decorator_list}
    methods = {n.name for n in cls.node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return bool(names & set(_NOT_BY_IDENTITY)) or bool(decorated & {"attr.s", "attrs.define", "attr.define", "define"}) or (
        "__tf_tracing_type__" in methods
    )


def _shape_arg(module, name, call):
    if name is None:
        return None
    resolved = module.bindings.resolve(call.func) if name.startswith("tensorflow") else name
    spec = _ARRAYS.get(resolved)
    if spec is None:
        return None
    pos, kw = spec
    for k in call.keywords:
        if k.arg == kw:
            return k.value
    if pos is None:
        return ast.Tuple(elts=list(call.args), ctx=ast.Load()) if call.args else None
    return call.args[pos] if len(call.args) > pos else None


def _innermost(loops, stmt):
    for loop in reversed(loops):
        node = loop.node
        if isinstance(node, _LOOPS) and any(n is stmt for n in walk_scope(node.body)):
            return node
    return None
