"""What the source fixes about values: a scope's bindings (:func:`assignments`), ints and
literals bound once (:func:`const_int`, :func:`literal`), how many items an iterable yields
(:func:`iterations`), and the values a ``for`` target takes (:func:`loop_values`).

Unknown stays unknown: ``range(epochs)`` with ``epochs`` read from the command line has no
count, and a name bound twice is no constant.
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, Sequence

if TYPE_CHECKING:
    from graphlint.static.model.module import Module
    from graphlint.static.model.scopes import Function

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
RANGES = frozenset({"range", "trange", "tqdm.trange", "tqdm.auto.trange", "six.moves.range", "builtins.range"})
_WRAPPERS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "iter", "list", "reversed"})


class Var(NamedTuple):
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


def dotted_name(module: Module, func: ast.expr) -> str | None:
    dotted = module.bindings.dotted(func)
    if dotted is not None:
        return dotted
    return func.id if isinstance(func, ast.Name) else None


_SCOPE_TYPES = frozenset(_SCOPES)
_LOOP_TARGETS = frozenset({ast.For, ast.AsyncFor, ast.comprehension})


#: Nodes that bind no name and hold nothing that does (nor an operator): walks need not visit them.
LEAVES = frozenset(
    {ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.Import, ast.ImportFrom, ast.alias, ast.Pass}
    | {ast.Break, ast.Continue, ast.Global, ast.Nonlocal}
    | {cls for base in (ast.operator, ast.unaryop, ast.boolop, ast.cmpop) for cls in base.__subclasses__()}
)


#: Statements that hold no statement; and the parts of a statement that hold none either (only
#: a comprehension or ``:=`` in them binds a name: :func:`assignments` skips them when their
#: lines show neither).
_COMPOUND = frozenset(
    {ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.If, ast.With}
    | {ast.AsyncWith, ast.Try, getattr(ast, "TryStar", ast.Try), ast.Match}
)
_SIMPLE_STATEMENTS = frozenset(cls for cls in ast.stmt.__subclasses__() if cls not in _COMPOUND)
_SPANS = (ast.expr, ast.arg, ast.keyword)


def walk_scope(body: Sequence[ast.AST], skip: frozenset = frozenset()) -> Iterator[Any]:
    """The nodes of a block, not descending into nested defs, classes or lambdas (in the
    order of ``ast.iter_child_nodes``, depth first), leaving out nodes of the ``skip`` types."""
    stack = list(reversed(body))
    pop, push, node_type, scopes = stack.pop, stack.extend, ast.AST, _SCOPE_TYPES | skip
    while stack:
        node = pop()
        yield node
        children = []
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, node_type):
                if type(value) not in scopes:
                    children.append(value)
            elif type(value) is list:
                children += [v for v in value if isinstance(v, node_type) and type(v) not in scopes]
        if children:
            push(reversed(children))


def assignments(module: Module, scope: Function | None) -> dict:
    """Every binding of a plain name in a scope: name -> [(kind, value node or None)], in the
    order of :func:`walk_scope` (which enters the defs and classes of the block itself)."""
    key = ("retracing.assign", id(scope))
    if key in module.cache:
        return module.cache[key]
    out: dict = {}
    marked = _binding_lines(module)
    body = scope.node.body if scope is not None else module.tree.body
    # nodes of any type: `type(node) is X`, faster than isinstance, does not narrow them
    stack: list[Any] = list(reversed(body))
    pop, push, skip = stack.pop, stack.extend, _SCOPE_TYPES | LEAVES
    while stack:
        node = pop()
        cls = type(node)  # ast.parse makes exactly these classes
        if cls is ast.Assign:
            for t in node.targets:
                _bind(out, t, "=" if isinstance(t, ast.Name) else "?", node.value)
        elif cls is ast.AnnAssign:
            if node.value is not None:
                _bind(out, node.target, "=", node.value)
        elif cls is ast.AugAssign:
            _bind(out, node.target, "+=", node.value)
        elif cls in _LOOP_TARGETS:
            _bind(out, node.target, "?", None)
        elif cls is ast.withitem:
            if node.optional_vars is not None:
                _bind(out, node.optional_vars, "?", None)
        elif cls is ast.NamedExpr:
            _bind(out, node.target, "=", node.value)
        if cls in _SIMPLE_STATEMENTS and not _may_bind(node, marked):
            continue  # no comprehension or ``:=`` in it: nothing more binds
        children = []
        for name in node._fields:  # walk_scope's children, less the expressions that bind nothing
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                value = (value,)
            elif type(value) is not list:
                continue
            children += [
                v for v in value
                if isinstance(v, ast.AST) and type(v) not in skip and (not isinstance(v, _SPANS) or _may_bind(v, marked))
            ]
        if children:
            push(reversed(children))
    if scope is not None:
        for p in scope.params:
            out.setdefault(p, []).append(("?", None))
    module.cache[key] = out
    return out


def _binding_lines(module: Module) -> list[int]:
    """The lines where an expression may bind a name: a comprehension's ``for`` or a ``:=``
    (a superset: the words in strings and comments, ``for`` statements, count too)."""
    found = module.cache.get("retracing.binding-lines")
    if found is None:
        text = module.text
        if "\r" in text:  # one "\n" per line break, as ast counts lines
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = set()
        for word in ("for", ":="):
            line, last, i = 1, 0, text.find(word)
            while i >= 0:
                line += text.count("\n", last, i)
                last = i
                after = text[i + len(word):i + len(word) + 1]
                if word == ":=" or not (after.isalnum() or after == "_"):  # not ``format``, ``forward``
                    lines.add(line)
                i = text.find(word, i + 1)
        found = module.cache["retracing.binding-lines"] = sorted(lines)
    return found


def _may_bind(node: Any, marked: list[int]) -> bool:
    """Whether ``node`` spans one of the ``marked`` lines, so may hold a comprehension or ``:=``;
    a node without a position is walked."""
    end = getattr(node, "end_lineno", None)
    if end is None:
        return True
    i = bisect_left(marked, node.lineno)
    return i < len(marked) and marked[i] <= end


def _bind(out: dict, target: ast.expr, kind: str, value: ast.AST | None) -> None:
    if isinstance(target, ast.Name):
        out.setdefault(target.id, []).append((kind, value))
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _bind(out, elt, "?", None)
    elif isinstance(target, ast.Starred):
        _bind(out, target.value, "?", None)


def const_int(module: Module, scope: Function | None, expr: ast.AST | None, depth: int = 0) -> int | None:
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
    if isinstance(expr, ast.Call) and dotted_name(module, expr.func) == "len" and len(expr.args) == 1:
        return _length(module, scope, expr.args[0])
    return None


def literal(module: Module, scope: Function | None, expr: ast.AST) -> ast.List | ast.Tuple | ast.Set | None:
    """``expr`` itself when a list/tuple/set literal, or the literal a name is bound to once and
    never grown (``STAGES = ("a", "b")``); else None."""
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        return expr
    if not isinstance(expr, ast.Name):
        return None
    if "retracing.grown" not in module.cache:
        module.cache["retracing.grown"] = {
            c.receiver.id for c in module.calls
            if c.method in ("append", "extend", "insert") and isinstance(c.receiver, ast.Name)
        }
    if expr.id in module.cache["retracing.grown"]:
        return None
    for s in (scope, None) if scope is not None else (None,):
        found = assignments(module, s).get(expr.id)
        if found:
            value = found[0][1]
            ok = len(found) == 1 and found[0][0] == "=" and isinstance(value, (ast.List, ast.Tuple, ast.Set))
            return value if ok else None
    return None


def _length(module: Module, scope: Function | None, expr: ast.AST) -> int | None:
    expr = literal(module, scope, expr) or expr
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)) and not any(isinstance(e, ast.Starred) for e in expr.elts):
        return len(expr.elts)
    if isinstance(expr, ast.Call) and dotted_name(module, expr.func) in RANGES:
        return _range_len(module, scope, expr)
    return None


def _range_len(module: Module, scope: Function | None, call: ast.Call) -> int | None:
    args = [const_int(module, scope, a) for a in call.args]
    if not args or None in args or len(args) > 3 or call.keywords:
        return None
    try:
        return len(range(*args))  # type: ignore[arg-type]  # None in args is ruled out above
    except ValueError:
        return None


def unwrapped(module: Module, it: ast.expr) -> ast.expr:
    """``it`` without the wrappers that keep its length (``tqdm(x)``, ``list(x)``, ``reversed(x)``)."""
    while isinstance(it, ast.Call) and dotted_name(module, it.func) in _WRAPPERS and it.args:
        it = it.args[0]
    return it


def iterations(module: Module, scope: Function | None, iterable: ast.expr) -> int | None:
    """How many items the source says ``iterable`` yields: a literal (or a name bound once to
    one), ``range(...)`` of fixed ints, ``enumerate``/``sorted``/``zip`` (the shortest known) of
    those, through length-keeping wrappers; None when unknown."""
    it = unwrapped(module, iterable)
    if not isinstance(it, ast.Call):
        return _length(module, scope, it)
    name = dotted_name(module, it.func)
    if name in RANGES:
        return _range_len(module, scope, it)
    if name in ("enumerate", "sorted") and it.args:
        return iterations(module, scope, it.args[0])
    if name == "zip" and it.args and not it.keywords:
        known = [n for n in (iterations(module, scope, a) for a in it.args) if n is not None]
        return min(known) if known else None
    return None


#: scikit-learn's cross-validation splitters: ``splitter.split(X)`` yields ``n_splits`` folds
#: (the first argument), by default these many.
_SPLITTERS = {
    "KFold": 5, "StratifiedKFold": 5, "GroupKFold": 5, "StratifiedGroupKFold": 5, "TimeSeriesSplit": 5,
    "ShuffleSplit": 10, "StratifiedShuffleSplit": 10, "GroupShuffleSplit": 5,
}


_NUMPY_SPLITS = frozenset({"numpy.array_split", "numpy.split"})


def folds(module: Module, scope: Function | None, iterable: ast.expr) -> int | None:
    """How many folds a cross-validation loop's iterable yields, when the source fixes it:
    ``KFold(n_splits=k).split(X)`` (the splitter made there, or bound once to a name),
    ``np.array_split(x, k)`` / ``np.split(x, k)``, or ``zip``/``enumerate`` of those. Not part
    of :func:`iterations`: a loop over data pieces is a loop over items for the other rules."""
    call = unwrapped(module, iterable)
    if not isinstance(call, ast.Call):
        return None
    if dotted_name(module, call.func) in ("zip", "enumerate") and call.args and not call.keywords:
        known = [n for n in (folds(module, scope, a) for a in call.args) if n is not None]
        return min(known) if known else None
    func = call.func
    if dotted_name(module, func) in _NUMPY_SPLITS and len(call.args) >= 2:
        return const_int(module, scope, call.args[1])  # sections given as a list: None
    if not (isinstance(func, ast.Attribute) and func.attr == "split"):
        return None
    splitter = func.value
    if isinstance(splitter, ast.Name):
        for s in (scope, None) if scope is not None else (None,):
            found = assignments(module, s).get(splitter.id)
            if found:
                if len(found) != 1 or found[0][0] != "=":
                    return None
                splitter = found[0][1]
                break
    if not isinstance(splitter, ast.Call):
        return None
    name = dotted_name(module, splitter.func)
    if name is None or not name.startswith("sklearn."):
        return None
    default = _SPLITTERS.get(name.rpartition(".")[2])
    if default is None:
        return None
    given = next((k.value for k in splitter.keywords if k.arg == "n_splits"), splitter.args[0] if splitter.args else None)
    if given is None:
        return default
    return const_int(module, scope, given)


def loop_values(module: Module, target: ast.expr, iterable: ast.expr, loop: ast.AST | None = None, scope: Function | None = None) -> dict:
    """The names a ``for`` target binds that take Python numbers, and ``__count__``: how many
    times the loop runs when the source fixes it."""
    it = unwrapped(module, iterable)
    out: dict = {"__count__": iterations(module, scope, it)}
    count = out["__count__"]
    if isinstance(it, ast.Call) and dotted_name(module, it.func) in RANGES:
        if isinstance(target, ast.Name):
            out[target.id] = Var("value", count, loop, f"the loop variable of `{ast.unparse(it)}`", target.id)
    elif isinstance(it, ast.Call) and dotted_name(module, it.func) == "itertools.count":
        if isinstance(target, ast.Name):
            out[target.id] = Var("value", None, loop, f"the loop variable of `{ast.unparse(it)}`", target.id)
    elif isinstance(it, ast.Call) and dotted_name(module, it.func) == "enumerate" and it.args:
        if isinstance(target, (ast.Tuple, ast.List)) and target.elts and isinstance(target.elts[0], ast.Name):
            out[target.elts[0].id] = Var("value", count, loop, "the index of `enumerate`", target.elts[0].id)
    elif (values := literal(module, scope, it)) is not None:
        if count is not None and isinstance(target, ast.Name) and all(isinstance(e, ast.Constant) for e in values.elts):
            distinct = len({repr(e.value) for e in values.elts if isinstance(e, ast.Constant)})
            out[target.id] = Var("value", distinct, loop, f"the loop variable over {distinct} literal values", target.id)
    return out
