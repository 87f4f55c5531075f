"""What a :class:`graphlint.static.model.module.Module` is made of: the calls, loops, ``with``
items, functions and classes of one file, placed in their scopes; and the names of the
TensorFlow calls the model itself recognises (sessions, graphs, per-call methods)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from graphlint.static.model.names import api

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
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


@dataclass(eq=False)
class WithItem:
    """One ``with`` item: ``expr`` entered by ``stmt``, in ``scope``."""

    item: ast.withitem
    stmt: ast.With | ast.AsyncWith
    scope: "Function | None"
    call_name: str | None  # the canonical name when the item is a call of an API

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


@dataclass(eq=False)
class Loop:
    node: ast.AST  # a for/while statement or a comprehension
    scope: "Function | None"
    calls: list = field(default_factory=list)
    depth: tuple = (0, 0)  # how many with items and ifs were open where the loop starts

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
            found = self._resets = any(c.name in FRESH_STATE and not c.entered for c in self.calls)
        return found

class _stored:
    """A property computed on first use and then stored on the instance, where later reads
    find it without a call (as ``functools.cached_property``, without its lock on 3.11). For
    what a call site derives from its node, which never changes."""

    def __init__(self, compute):
        self.compute, self.name, self.__doc__ = compute, compute.__name__, compute.__doc__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.compute(obj)
        return value


@dataclass(eq=False)
class CallSite:
    """A call (or a bare decorator) in the file."""

    node: ast.expr
    name: str | None  # canonical API name of the callee, or None
    scope: "Function | None"  # the enclosing function; None at module level (or class body)
    cls: "ClassInfo | None"  # the class whose body (or method) contains it
    loops: tuple  # Loop objects around it in its scope, outermost first
    withs: tuple  # WithItem objects around it in its scope, outermost first
    trys: tuple  # (ast.Try, part) around it in its scope; part: body/handler/orelse/finalbody
    ifs: tuple  # (ast.If, branch) around it in its scope
    block: tuple  # the chain of blocks it sits in: equal for two calls on one straight path
    parent: ast.Call | None = None  # the call it is an argument of
    decorator: bool = False
    entered: bool = False  # the context expression of a ``with`` item
    target: "Function | None" = None  # the user's own function it calls, when known
    local_class: "ClassInfo | None" = None  # the user's own class it instantiates, when known

    @_stored
    def line(self) -> int:
        return self.node.lineno

    @_stored
    def method(self) -> str | None:
        func = self.node.func if isinstance(self.node, ast.Call) else self.node
        return func.attr if isinstance(func, ast.Attribute) else None

    @_stored
    def receiver(self) -> ast.expr | None:
        func = self.node.func if isinstance(self.node, ast.Call) else None
        return func.value if isinstance(func, ast.Attribute) else None

    @_stored
    def api(self) -> str | None:
        """The TensorFlow part of the name: ``Session`` for ``tensorflow.compat.v1.Session``."""
        return api(self.name)

    def under_graph_default(self) -> bool:
        return any(w.is_as_default for w in self.withs)


@dataclass(eq=False)
class Function:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    qualname: str
    cls: "ClassInfo | None"
    parent: "Function | None"
    calls: list = field(default_factory=list)
    callers: list = field(default_factory=list)
    children: dict = field(default_factory=dict)
    params: frozenset = frozenset()
    is_method: bool = False

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
        (answered once)."""
        found = self.__dict__.get("_resets")
        if found is None:
            found = self._resets = any(c.name in FRESH_STATE and not c.entered for c in self.calls)
        return found


@dataclass(eq=False)
class ClassInfo:
    node: ast.ClassDef
    bases: tuple  # canonical names (or None) of its bases
    methods: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.node.name


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` with ``replacement`` (character offsets) to fix a finding."""

    code: str
    line: int
    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class Reason:
    """Why a function runs again and again: the words and the call site that shows it."""

    text: str
    site: "CallSite | None" = None

