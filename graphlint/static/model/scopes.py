"""What a :class:`graphlint.static.model.module.Module` is made of: the calls, loops, ``with``
items, functions and classes of one file, placed in their scopes; the names of the
TensorFlow calls the model itself recognises (sessions, graphs, per-call methods); and the
scope a name read in a statement is bound in, with its every binding (:func:`resolve_name`:
Python's rules, closures, ``global`` and ``nonlocal``).

The records are plain classes and named tuples, not dataclasses: a dataclass compiles its
methods from source when its class is made, ~2M instructions each at every start of graphlint."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any, Callable, Generic, NamedTuple, TypeVar, overload

from graphlint.static.model.names import api

if TYPE_CHECKING:
    from graphlint.static.model.module import Module

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_CALL, _ATTRIBUTE = ast.Call, ast.Attribute
#: The statements that hold statements, and in which fields (in this order: where the
#: imports, bindings and the prefilter look); no other node of a parsed module has any.
NESTED = {
    cls: tuple(name for name in ("body", "orelse", "finalbody", "handlers", "cases") if name in cls._fields)
    for cls in (
        ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.If,
        ast.With, ast.AsyncWith, ast.Try, getattr(ast, "TryStar", ast.Try), ast.ExceptHandler, ast.Match,
        ast.match_case,
    )
}
LINE_BREAK = re.compile(r"\r\n|\r|\n")

#: Methods that run once per request on a long-lived object.
PER_CALL_METHODS = frozenset(
    {
        "predict", "predict_proba", "predict_on_batch", "forecast", "__call__", "call", "infer",
        "inference", "serve", "score", "classify", "transform", "embed", "encode", "decode",
    }
)
#: Methods that run once per object: what they build is built once per instance.
ONCE_METHODS = frozenset({"__init__", "__new__", "__post_init__", "build", "setUp", "setup"})

SESSIONS = frozenset(
    {
        "tensorflow.compat.v1.Session",
        "tensorflow.compat.v1.InteractiveSession",
        "tensorflow.compat.v1.train.MonitoredTrainingSession",
        "tensorflow.compat.v1.train.MonitoredSession",
        "tensorflow.compat.v1.train.SingularMonitoredSession",
    }
)
#: Calls that return the session in use.
SESSION_GETTERS = frozenset({"tensorflow.compat.v1.get_default_session", "keras.backend.get_session"})
GRAPH = "tensorflow.Graph"
#: Calls after which the next build starts from a fresh graph (or fresh Keras state).
FRESH_STATE = frozenset(
    {"tensorflow.Graph", "tensorflow.compat.v1.reset_default_graph", "keras.backend.clear_session"}
)


class WithItem:
    """One ``with`` item: ``expr`` entered by ``stmt``, in ``scope``."""

    item: ast.withitem
    stmt: ast.With | ast.AsyncWith
    scope: "Function | None"
    call_name: str | None  # the canonical name when the item is a call of an API

    def __init__(self, item: ast.withitem, stmt: ast.With | ast.AsyncWith, scope: "Function | None",
                 call_name: str | None) -> None:
        self.item, self.stmt, self.scope, self.call_name = item, stmt, scope, call_name

    @property
    def expr(self) -> ast.expr:
        return self.item.context_expr

    @property
    def is_as_default(self) -> bool:
        e = self.expr
        return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "as_default"

    @property
    def is_scope(self) -> bool:
        """variable_scope / name_scope / device / control_dependencies: same graph, same block."""
        a = api(self.call_name)
        return a in ("variable_scope", "name_scope", "device", "control_dependencies", "variable_op_scope")


class Loop:
    node: ast.AST  # a for/while statement or a comprehension
    scope: "Function | None"
    calls: list
    depth: tuple  # how many with items and ifs were open where the loop starts

    def __init__(self, node: ast.AST, scope: "Function | None", calls: list | None = None, depth: tuple = (0, 0)) -> None:
        self.node, self.scope, self.depth = node, scope, depth
        self.calls = [] if calls is None else calls

    def inner_withs(self, call: "CallSite") -> tuple:
        return call.withs[self.depth[0]:]

    def inner_ifs(self, call: "CallSite") -> tuple:
        return call.ifs[self.depth[1]:]

    @property
    def is_comprehension(self) -> bool:
        return isinstance(self.node, COMPS)

    def resets_state(self) -> bool:
        """Whether each iteration starts from a fresh graph (or Keras state). Asked per call in
        the loop: answered once."""
        found = self.__dict__.get("_resets")
        if found is None:
            found = self._resets = any(starts_fresh(c) for c in self.calls)
        return found

_T = TypeVar("_T")


class _stored(Generic[_T]):
    """A property computed on first use and then stored on the instance, where later reads
    find it without a call (as ``functools.cached_property``, without its lock on 3.11). For
    what a call site derives from its node, which never changes."""

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute, self.name, self.__doc__ = compute, compute.__name__, compute.__doc__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _stored[_T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...
    def __get__(self, obj: object, owner: type | None = None) -> _T | _stored[_T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.compute(obj)
        return value


class CallSite:
    """A call (or a bare decorator) in the file. (Its ``__init__`` stores a field left at its
    default only when given another value: the class holds the default. One is made per call
    of the file, ~40,000 on the corpus: the fields every site has are slots, the others and
    the stored properties go in its ``__dict__``.)"""

    __slots__ = ("node", "name", "scope", "cls", "loops", "withs", "trys", "ifs", "block", "method", "__dict__")

    node: ast.expr
    name: str | None  # canonical API name of the callee, or None
    scope: "Function | None"  # the enclosing function; None at module level (or class body)
    cls: "ClassInfo | None"  # the class whose body (or method) contains it
    loops: tuple  # Loop objects around it in its scope, outermost first
    withs: tuple  # WithItem objects around it in its scope, outermost first
    trys: tuple  # (ast.Try, part) around it in its scope; part: body/handler/orelse/finalbody
    ifs: tuple  # (ast.If, branch) around it in its scope
    block: tuple  # the chain of blocks it sits in: equal for two calls on one straight path
    method: str | None  # the attribute called (``minimize`` for ``opt.minimize(loss)``), or None
    parent: ast.Call | None = None  # the call it is an argument of
    decorator: bool = False
    entered: bool = False  # the context expression of a ``with`` item
    target: "Function | None" = None  # the user's own function it calls, when known
    local_class: "ClassInfo | None" = None  # the user's own class it instantiates, when known

    def __init__(
        self, node: ast.expr, name: str | None, scope: "Function | None", cls: "ClassInfo | None", loops: tuple,
        withs: tuple, trys: tuple, ifs: tuple, block: tuple, parent: ast.Call | None = None, decorator: bool = False,
    ) -> None:
        self.node = node
        self.name = name
        self.scope = scope
        self.cls = cls
        self.loops = loops
        self.withs = withs
        self.trys = trys
        self.ifs = ifs
        self.block = block
        func: Any = node  # a bare decorator: the name itself
        if type(func) is _CALL:
            func = func.func
        # (nearly every check asks every call's method: is_minimize, is_session_run)
        self.method = func.attr if type(func) is _ATTRIBUTE else None
        if parent is not None:
            self.parent = parent
        if decorator:
            self.decorator = decorator

    @_stored
    def line(self) -> int:
        return self.node.lineno

    @_stored
    def receiver(self) -> ast.expr | None:
        func = self.node.func if type(self.node) is _CALL else None
        return func.value if type(func) is _ATTRIBUTE else None

    @_stored
    def api(self) -> str | None:
        """The TensorFlow part of the name: ``Session`` for ``tensorflow.compat.v1.Session``."""
        return api(self.name)

    def under_graph_default(self) -> bool:
        return bool(self.withs) and any(w.is_as_default for w in self.withs)


class Function:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    qualname: str
    cls: "ClassInfo | None"
    parent: "Function | None"
    calls: list
    callers: list
    children: dict
    params: frozenset
    is_method: bool

    def __init__(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, cls: "ClassInfo | None",
        parent: "Function | None", calls: list | None = None, callers: list | None = None,
        children: dict | None = None, params: frozenset = frozenset(), is_method: bool = False,
    ) -> None:
        self.node, self.qualname, self.cls, self.parent = node, qualname, cls, parent
        self.calls = [] if calls is None else calls
        self.callers = [] if callers is None else callers
        self.children = {} if children is None else children
        self.params, self.is_method = params, is_method

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def display(self) -> str:
        return f"`{self.qualname}()`"

    def resets_state(self) -> bool:
        """Whether it makes (or resets) its own graph, so what it builds lands in a fresh one
        (answered once; a helper of the file that does it counts, see :func:`starts_fresh`)."""
        found = self.__dict__.get("_resets")
        if found is None:
            self._resets = False  # recursion guard
            found = self._resets = any(starts_fresh(c) for c in self.calls)
        return found


def passed_for(fn: "Function", param: str, node: ast.Call) -> ast.expr | None:
    """What the call ``node`` of ``fn`` passes for its parameter ``param`` (by keyword, or by
    position after ``self`` for a method), or None (not passed, or inside ``*args``)."""
    arg = next((k.value for k in node.keywords if k.arg == param), None)
    if arg is None:
        names = [a.arg for a in fn.node.args.posonlyargs + fn.node.args.args]
        if fn.is_method and names:
            names = names[1:]  # self: the receiver
        if param in names and names.index(param) < len(node.args):
            arg = node.args[names.index(param)]
    return None if isinstance(arg, ast.Starred) else arg


def starts_fresh(call: CallSite) -> bool:
    """Whether what is built after this call lands in a fresh graph (or Keras state):
    ``tf.Graph()``, ``reset_default_graph()`` or ``clear_session()`` called; or a function of
    the file that calls one on its straight path (a notebook's ``reset_graph()`` helper); or a
    class of the file whose ``__init__`` does (a model class starting with
    ``tf.reset_default_graph()``)."""
    if call.entered:
        return False
    if call.name in FRESH_STATE:
        return True
    target = call.target
    if target is None and call.local_class is not None:
        target = call.local_class.methods.get("__init__")
    return target is not None and resets_unconditionally(target)


def resets_unconditionally(fn: "Function") -> bool:
    """Whether ``fn`` starts a fresh graph on its straight path (not under an ``if``, a loop or
    a ``try``), itself or through a helper of the file."""
    if not fn.resets_state():
        return False
    return any(
        not (c.ifs or c.loops or c.trys) and (c.name in FRESH_STATE or (c.target is not fn and starts_fresh(c)))
        for c in fn.calls
    )


class ClassInfo:
    node: ast.ClassDef
    bases: tuple  # canonical names (or None) of its bases
    methods: dict
    #: Functions a method defines and binds to the object (``def train(...): ...`` then
    #: ``self.train = train`` in ``__init__``, OpenAI baselines' shape): called as methods.
    bound: dict

    def __init__(self, node: ast.ClassDef, bases: tuple, methods: dict | None = None) -> None:
        self.node, self.bases = node, bases
        self.methods = {} if methods is None else methods
        self.bound = {}

    @property
    def name(self) -> str:
        return self.node.name

    def method(self, name: str) -> "Function | None":
        """What ``obj.name(...)`` runs: the method, or the function bound under that name."""
        found = self.methods.get(name)
        return found if found is not None else self.bound.get(name)


class Edit(NamedTuple):
    """Replace ``text[start:end]`` with ``replacement`` (character offsets) to fix a finding."""

    code: str
    line: int
    start: int
    end: int
    replacement: str


class Reason(NamedTuple):
    """Why a function runs again and again: the words and the call site that shows it, and the
    call in a loop the repetition starts from (``origin``: for a chain of callers, the first
    caller's call in its loop; None when it runs per call by what it is, a web handler...)."""

    text: str
    site: "CallSite | None" = None
    origin: "CallSite | None" = None

    def loop_sites(self) -> tuple[tuple[Any, str], ...]:
        """The related locations of :attr:`origin` when it is not :attr:`site`: the call in
        the loop and the loop (a finding names the loop that repeats, not only the caller)."""
        origin = self.origin
        if origin is None or origin is self.site or not origin.loops:
            return ()
        return ((origin.node, "called here, in a loop"), (origin.loops[-1].node, "the loop"))


# -- where a name is bound --------------------------------------------------------------------
class Scope:
    """A Python scope of the file (the module, a function or lambda, a class body, a
    comprehension) with every binding made in it: ``name -> [(kind, value)]`` (``kind``: "="
    for ``name = value`` and ``name := value``, "as" for ``with value as name``, "?" for any
    other binding: a parameter, a loop target, ``except ... as``, a ``case`` capture, an
    import, ``+=``...), and the names it declares ``global`` / ``nonlocal``."""

    node: ast.AST
    kind: str  # "module", "function", "class", "comprehension"
    parent: "Scope | None"
    bindings: dict
    globals: set
    nonlocals: set

    def __init__(self, node: ast.AST, kind: str, parent: "Scope | None", bindings: dict | None = None,
                 globals: set | None = None, nonlocals: set | None = None) -> None:
        self.node, self.kind, self.parent = node, kind, parent
        self.bindings = {} if bindings is None else bindings
        self.globals = set() if globals is None else globals
        self.nonlocals = set() if nonlocals is None else nonlocals

    def bind(self, name: str, kind: str, value: ast.AST | None = None) -> None:
        self.bindings.setdefault(name, []).append((kind, value))


_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, *COMPS)


def scope_index(module: Module) -> dict:
    """Every scope of the file by the id of its node, and every statement's scope by the id of
    the statement (``("stmt", id)``). One walk of the tree, once per module, when asked."""
    found = module.cache.get("scope-index")
    if found is not None:
        return found
    root = Scope(module.tree, "module", None)
    index: dict = {id(module.tree): root}
    declared: dict = {}  # name -> the scopes declaring it global or nonlocal
    # nodes of any type: `type(node) is X`, faster than isinstance, does not narrow them
    stack: list[tuple[Any, Scope]] = [(node, root) for node in reversed(module.tree.body)]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, ast.stmt):
            index[("stmt", id(node))] = scope
        cls = type(node)
        if cls in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            scope.bind(node.name, "?")
            outer = [*node.decorator_list, *(node.bases + [k.value for k in node.keywords] if cls is ast.ClassDef else [])]
            if cls is not ast.ClassDef:
                outer += [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
                outer += [a.annotation for a in _arguments(node.args) if a.annotation is not None]
                if node.returns is not None:
                    outer.append(node.returns)
            inner = Scope(node, "class" if cls is ast.ClassDef else "function", scope)
            index[id(node)] = inner
            if cls is not ast.ClassDef:
                for a in _arguments(node.args):
                    inner.bind(a.arg, "?")
            stack += [(child, scope) for child in reversed(outer)]
            stack += [(child, inner) for child in reversed(node.body)]
            continue
        if cls is ast.Lambda:
            inner = Scope(node, "function", scope)
            index[id(node)] = inner
            for a in _arguments(node.args):
                inner.bind(a.arg, "?")
            stack += [(d, scope) for d in reversed([*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)])]
            stack.append((node.body, inner))
            continue
        if cls in _COMP_TYPES:
            inner = Scope(node, "comprehension", scope)
            index[id(node)] = inner
            first = node.generators[0]
            stack.append((first.iter, scope))  # evaluated in the enclosing scope
            for gen in node.generators:
                _bind_target(inner, gen.target, "?")
                if gen is not first:
                    stack.append((gen.iter, inner))
                stack += [(cond, inner) for cond in gen.ifs]
            stack += [(e, inner) for e in ((node.key, node.value) if cls is ast.DictComp else (node.elt,))]
            continue
        if cls is ast.Global or cls is ast.Nonlocal:
            (scope.globals if cls is ast.Global else scope.nonlocals).update(node.names)
            for name in node.names:
                declared.setdefault(name, []).append(scope)
        elif cls is ast.Assign:
            for target in node.targets:
                _bind_target(scope, target, "=", node.value)
        elif cls is ast.AnnAssign:
            _bind_target(scope, node.target, "=" if node.value is not None else "?", node.value)
        elif cls is ast.AugAssign:
            _bind_target(scope, node.target, "?")
        elif cls in (ast.For, ast.AsyncFor):
            _bind_target(scope, node.target, "?")
        elif cls is ast.withitem:
            if node.optional_vars is not None:
                _bind_target(scope, node.optional_vars, "as", node.context_expr)
        elif cls is ast.NamedExpr:  # binds in the nearest scope that is no comprehension
            owner: Scope | None = scope
            while owner is not None and owner.kind == "comprehension":  # a comprehension has a parent
                owner = owner.parent
            if owner is not None:
                owner.bind(node.target.id, "=", node.value)
        elif cls is ast.ExceptHandler:
            if node.name:
                scope.bind(node.name, "?")
        elif cls in (ast.Import, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    scope.bind(alias.asname or alias.name.split(".", 1)[0], "?")
        elif cls is ast.Delete:
            for target in node.targets:
                _bind_target(scope, target, "?")
        elif cls in _MATCH_CAPTURES:
            name = getattr(node, "rest" if cls is ast.MatchMapping else "name", None)
            if name:
                scope.bind(name, "?")
        stack += [(child, scope) for child in reversed(list(ast.iter_child_nodes(node)))]
    index["declared"] = declared
    module.cache["scope-index"] = index
    return index


_COMP_TYPES = frozenset(COMPS)
_MATCH_CAPTURES = tuple(getattr(ast, n) for n in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(ast, n))


def _arguments(args: ast.arguments) -> list:
    return [*args.posonlyargs, *args.args, *([args.vararg] if args.vararg else []), *args.kwonlyargs,
            *([args.kwarg] if args.kwarg else [])]


def _bind_target(scope: Scope, target: ast.AST, kind: str, value: ast.AST | None = None) -> None:
    if isinstance(target, ast.Name):
        scope.bind(target.id, kind, value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _bind_target(scope, elt, "?")
    elif isinstance(target, ast.Starred):
        _bind_target(scope, target.value, "?")


def resolve_name(module: Module, name: str, stmt: ast.stmt) -> tuple[Scope, list] | None:
    """The scope the variable ``name`` read in ``stmt`` is, as Python resolves it (its own
    function, an enclosing one for a closure or ``nonlocal``, the module for ``global`` or a
    name bound nowhere else; a class body reads its own bindings, then as a function would),
    and every binding of it: those made in that scope and those other scopes make through
    ``global`` and ``nonlocal``, ``[(kind, value)]`` as :class:`Scope` keeps them (once per
    scope and name). None when nothing in the file binds it (a builtin)."""
    index = scope_index(module)
    scope = index.get(("stmt", id(stmt)))
    if scope is None:
        return None
    owner = _owner(scope, name, index[id(module.tree)])
    if owner is None:
        return None
    key = ("bindings", id(owner), name)
    found = index.get(key)
    if found is None:
        found = list(owner.bindings.get(name, ()))
        declared: dict[str, list[Scope]] = index["declared"]
        for other in declared.get(name, ()):  # bindings made where it is declared global / nonlocal
            if other is owner:
                continue
            if owner.kind == "module" and name in other.globals:
                found += other.bindings.get(name, ())
            elif name in other.nonlocals and _owner(other, name, index[id(module.tree)]) is owner:
                found += other.bindings.get(name, ())
        index[key] = found
    return (owner, found) if found else None


def _owner(scope: Scope, name: str, root: Scope) -> Scope | None:
    """The scope whose variable ``name``, read in ``scope``, is."""
    if name in scope.globals:
        return root
    if name in scope.nonlocals:
        outer = scope.parent
        while outer is not None and (outer.kind == "class" or name not in outer.bindings):
            outer = outer.parent
        return outer if outer is not None and outer.kind != "module" else None
    here: Scope | None = scope
    while here is not None:
        if here is scope or here.kind not in ("class",):  # an enclosing class body is no scope of its methods
            if name in here.globals:
                return root
            if name in here.bindings:
                return here
        here = here.parent
    return None
