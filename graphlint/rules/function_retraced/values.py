"""What a value in a loop is, as ``tf.function`` keys traces on it: a Python number that changes
per iteration (and how many values it can take), a list that grows, a new object, an array whose
shape follows the loop — or none of these (a tensor, a constant, something unknown).

Used by GL501's check. Unknown stays unknown: a name whose every assignment is
not visibly a Python number is never taken for one.
"""

from __future__ import annotations

import ast

from graphlint.static.model.values import (
    CONST, LEAVES, RANGES, Var, assignments, const_int, dotted_name, loop_values, walk_scope,
)

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: Names whose attributes are settings: Python values (``args.lr``, ``FLAGS.batch_size``).
CONFIG_NAMES = frozenset({"args", "FLAGS", "flags", "cfg", "config", "hparams", "opt", "opts"})
_NUMBER_FUNCS = frozenset({"float", "int", "round", "abs", "min", "max", "pow", "divmod"})
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


def values_around(module, site) -> "Values":
    """The :class:`Values` of the loops around ``site``, made once per scope and loops: the
    calls of one loop share them (each is read as its own call: :meth:`Values.once_per_run`)."""
    key = ("values", id(site.scope), tuple(map(id, site.loops)))
    found = module.cache.get(key)
    if found is None:
        found = module.cache[key] = Values(module, site)
    return found


class Values:
    """The values around one call site: its loops' variables and what the loops assign
    (what it reads of the site is its scope and its loops)."""

    def __init__(self, module, site):
        self.module, self.scope = module, site.scope
        self.env: dict[str, Var] = {}
        self.opaque: set[str] = set()  # assigned in the loop, not visibly a Python value
        self.grown: dict[str, ast.AST] = {}  # lists appended to in the loop -> the loop
        self._loops, self._inner = site.loops, None
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

    def _innermost(self, stmt):
        """The innermost ``for``/``while`` loop around ``stmt``: each loop's body is walked once."""
        if self._inner is None:
            self._inner = {}
            for loop in self._loops:  # outermost first: a node of an inner loop is overwritten
                if isinstance(loop.node, _LOOPS):
                    self._inner.update(dict.fromkeys(map(id, walk_scope(loop.node.body, LEAVES)), loop.node))
        return self._inner.get(id(stmt))

    def _assigned_in(self, outer, loops) -> None:
        binds: dict[str, list] = {}
        for node in walk_scope(outer.body, LEAVES):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                binds.setdefault(node.targets[0].id, []).append(("=", node.value, node))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                binds.setdefault(node.target.id, []).append(("+=", node.value, node))
            elif (
                isinstance(node, ast.AugAssign)
                and isinstance(node.target, ast.Attribute)
                and isinstance(node.target.value, ast.Name)
                and node.target.value.id == "self"
                and isinstance(node.value, ast.Constant)
                and type(node.value.value) in (int, float)
            ):  # ``self.step += 1``: a counter kept on the object
                name = ast.unparse(node.target)
                self.env[name] = Var("value", None, self._innermost(node) or outer, _counter(name, node), name)
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
                updated = None
                if self._updated_number(name, entries):  # ``eps = max(0.01, eps * 0.99)``
                    updated = self.env[name] = Var("value", None, self._innermost(entries[0][2]) or outer,
                                                   f"a Python number updated in the loop (`{name} = ...`)", name)
                vars_: list[Var] | None = None  # None: one of them is not known
                collected: list[Var] = []
                for kind, value, stmt in entries:
                    var = self.argument(value) if kind == "=" else self.number(value)
                    if var is None or (kind == "+=" and (var.kind not in ("const", "value") or not self._known_number(name))):
                        break
                    if kind == "+=":
                        var = Var("value", None, self._innermost(stmt) or outer, _counter(name, stmt), name)
                    collected.append(var)
                else:
                    vars_ = collected
                varying = [v for v in vars_ or () if v.varying]
                if vars_ and varying and updated is not None:
                    self.env[name] = updated
                elif vars_ and varying:
                    first = varying[0]
                    self.env[name] = first if len(varying) == 1 else Var(first.kind, None, first.loop, first.what, first.source)
                    self.opaque.discard(name)
                else:
                    self.opaque.add(name)

    def once_per_run(self, site) -> set:
        """The loops in which the call runs on one iteration only: ``if i == n - 1:``."""
        out = set()
        for node, branch in site.ifs:
            test = node.test
            if branch != "body" or not (isinstance(test, ast.Compare) and len(test.ops) == 1):
                continue
            if isinstance(test.ops[0], ast.Eq):
                for side in (test.left, test.comparators[0]):
                    var = self.env.get(side.id) if isinstance(side, ast.Name) else None
                    if var is not None and var.source == getattr(side, "id", None):  # side is a Name
                        out.add(var.loop)
        return out

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
            if isinstance(e.value, ast.Name) and e.value.id == "self":
                return self.env.get(ast.unparse(e))
            return CONST if isinstance(e.value, ast.Name) and e.value.id in CONFIG_NAMES else None
        if isinstance(e, ast.BinOp):
            return self._combine([self.number(e.left), self.number(e.right)], e)
        if isinstance(e, ast.UnaryOp):
            operand = self.number(e.operand)
            return _flag(operand) if isinstance(e.op, ast.Not) else operand
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
            name = dotted_name(self.module, e.func)
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

    def _updated_number(self, name: str, entries) -> bool:
        """``name`` starts as a literal number before the loop and the loop rebinds it from itself."""
        mine = {id(value) for _, value, _ in entries}
        if not any(kind == "=" and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value))
                   for kind, value, _ in entries):
            return False
        for s in [self.scope, None] if self.scope is not None else [None]:
            found = [(k, v) for k, v in assignments(self.module, s).get(name, ()) if id(v) not in mine]
            if found:
                return all(k == "=" and _is_literal_number(v) for k, v in found)
        return False

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
            name = dotted_name(m, e.func)
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
                if dotted_name(m, inner.func) in RANGES and any(self._varying_int(a) for a in inner.args):
                    return Var("length", None, self._loop_of(inner), "a list whose length follows the loop")
        if isinstance(e, ast.ListComp) and len(e.generators) == 1:
            it = e.generators[0].iter
            if isinstance(it, ast.Call) and dotted_name(m, it.func) in RANGES and any(self._varying_int(a) for a in it.args):
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
            k == "=" and (isinstance(v, ast.List) or (isinstance(v, ast.Call) and dotted_name(self.module, v.func) == "list"))
            for k, v in found
        )


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Pow: "**", ast.Mod: "%"}


def _counter(name: str, stmt: ast.AugAssign) -> str:
    return f"a counter (`{name} {_OPS.get(type(stmt.op), '+')}= {ast.unparse(stmt.value)}`)"


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


def distinct_keys(vars_) -> int | None:
    """How many distinct argument combinations the call can make: the product, over the loop
    variables the values follow, of the most values one of them takes (None: unbounded)."""
    per_source: dict = {}
    for i, var in enumerate(vars_):
        if var.bound is None:
            return None
        key = var.source or i
        per_source[key] = max(per_source.get(key, 0), var.bound)
    total = 1
    for bound in per_source.values():
        total *= bound
    return total
