"""How a :class:`graphlint.static.model.module.Module` is built: one pass over the ``ast`` tree
that resolves every call, places it (function, loops, ``with`` items, ``try`` and ``if`` parts),
records what names were assigned from, and links calls to the user's own functions.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from graphlint.static.model.module import origin_key
from graphlint.static.model.scopes import COMPS, GRAPH, NESTED, CallSite, ClassInfo, Function, Loop, WithItem, passed_for

if TYPE_CHECKING:
    from graphlint.static.model.module import Module


_NAME, _CONSTANT, _CALL, _ATTRIBUTE, _LAMBDA = ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Lambda
_TRIES: tuple[type[ast.Try | ast.TryStar], ...] = (ast.Try, getattr(ast, "TryStar", ast.Try))  # 3.11+: try/except*
_STARRED, _TUPLE, _LIST = ast.Starred, ast.Tuple, ast.List
_IMPORT, _IMPORT_FROM, _NAME_OR_ATTRIBUTE = ast.Import, ast.ImportFrom, frozenset({ast.Name, ast.Attribute})
_COMP_TYPES = frozenset(COMPS)
#: Expressions that hold no other expression, so no call.
_LEAVES = frozenset({ast.Name, ast.Constant})
_EXPR = ast.expr
_EXPR_STMT, _RETURN, _ASSIGN = ast.Expr, ast.Return, ast.Assign
_NO_CALLS = frozenset({ast.Import, ast.ImportFrom, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal})
#: Fields that never hold an expression (operators, contexts, identifiers, flags).
_NOT_EXPR = frozenset({"ctx", "op", "ops", "conversion", "kind", "type_comment", "attr", "id", "arg", "level", "is_async", "simple"})
_fields: dict[type, tuple[str, ...]] = {}


def _expr_children(node: ast.AST) -> list:
    """The expressions directly under ``node``, in ``ast.iter_child_nodes`` order."""
    cls = type(node)
    names = _fields.get(cls)
    if names is None:
        names = _fields[cls] = tuple(f for f in cls._fields if f not in _NOT_EXPR)
    out = []
    for name in names:
        value = getattr(node, name, None)
        if type(value) is list:
            out += [item for item in value if isinstance(item, _EXPR)]
        elif isinstance(value, _EXPR):
            out.append(value)
    return out


#: An expression class's fields that hold expressions: ``(name, a list of them)`` (see _parts_of).
_parts: dict[type, tuple[tuple[str, bool], ...]] = {}


def _parts_of(node: ast.expr) -> tuple[tuple[str, bool], ...]:
    """The fields of ``node``'s class that hold expressions, in order, each with whether it
    is a list. In a parsed tree an expression's other fields (all but :data:`_NOT_EXPR`, and
    the calls, attributes, lambdas and comprehensions :meth:`_Builder._exprs` takes apart
    itself) hold an expression or None, or a list of them (``expr?``, ``expr*`` in the
    grammar): which one a field is, every node of the class shows alike. A name or a
    constant (a comprehension's part, pushed as it is) holds none."""
    if type(node) in _LEAVES:
        return ()
    return tuple((name, type(getattr(node, name, None)) is list) for name in type(node)._fields if name not in _NOT_EXPR)


def build(module: Module, tree: ast.Module) -> None:
    """Fill ``module``'s calls, loops, withs, functions, classes and origins from ``tree``."""
    builder = _Builder(module)
    builder._collect_bindings(tree.body)
    builder._stmts(tree.body, _Ctx())
    builder._link_calls()
    builder._link_parameter_calls()


class _Builder:
    """The one pass: it fills the containers of one :class:`Module` (shared, not copied)."""

    # The walk dispatches on `type(node) is X` (faster than isinstance, which mypy would narrow
    # on): the nodes it is handed are typed Any.
    def __init__(self, module: Module) -> None:
        self.module = module
        self.bindings = module.bindings
        self.calls, self.loops, self.withs = module.calls, module.loops, module.withs
        self.functions, self.classes, self.module_functions = module.functions, module.classes, module.module_functions
        self._origins = module._origins
        self.in_tests = module.in_tests
        #: Whether a name was assigned an object of a class of the file (a ``class:`` origin):
        #: else no call is linked through the object it is made on (``agent.act(s)``).
        self.objects = False

    def _collect_bindings(self, body: list[ast.stmt]) -> None:
        """Imports and module-wide aliases (``tf1 = tf.compat.v1``), wherever they are."""
        stack: list[Any] = list(reversed(body))
        pop, extend, nested = stack.pop, stack.extend, NESTED.get
        while stack:
            node = pop()
            cls = type(node)
            if cls is _ASSIGN:
                targets = node.targets
                if len(targets) == 1 and type(targets[0]) is _NAME and type(node.value) in _NAME_OR_ATTRIBUTE:
                    self.bindings.add_alias(targets[0].id, node.value)
            elif cls is _IMPORT or cls is _IMPORT_FROM:
                self.bindings.add_import(node)
            else:
                fields = nested(cls)
                if fields is not None:
                    for name in fields:
                        children = getattr(node, name)
                        if children:
                            extend(reversed(children))

    def _assign_origin(self, target: Any, value: ast.expr | None, ctx: _Ctx, label: str | None = None) -> None:
        cls = type(target)
        key: tuple | None
        if cls is _NAME:  # the commonest: inline _origin_key
            scope = ctx.scope
            key = (id(scope) if scope is not None else None, target.id)
        elif cls is _TUPLE or cls is _LIST:
            values = value.elts if type(value) is _TUPLE or type(value) is _LIST else None
            if values is not None and len(values) == len(target.elts) and not any(
                type(e) is ast.Starred for e in (*target.elts, *values)
            ):  # ``a, b = Net("a"), Net("b")``: each name its own value
                for elt, part in zip(target.elts, values):
                    self._assign_origin(elt, part, ctx)
                return
            for elt in target.elts:
                self._assign_origin(elt, None, ctx, "?")
            return
        elif cls is _ATTRIBUTE:
            key = origin_key(target, ctx.scope)
            if key is None:
                return
            scope = ctx.scope
            if type(value) is _NAME and scope is not None and scope.is_method and type(target.value) is _NAME and target.value.id == "self":
                fn = scope.children.get(value.id)  # ``self.train = train`` after ``def train``
                if fn is not None and scope.cls is not None:
                    scope.cls.bound.setdefault(target.attr, fn)
        else:
            return
        if label is None:
            label = self._call_label(value) if type(value) is _CALL else "?"
        self._file_origin(key, label)

    def _file_origin(self, key: tuple, label: str) -> None:
        """``label`` among the origins of the name ``key`` (scope id, name)."""
        found = self._origins.get(key)
        if found is None:
            self._origins[key] = {label}
        else:
            found.add(label)

    def _call_label(self, call: ast.Call) -> str:
        name = self.bindings.resolve(call.func)
        if name is not None:
            return name
        if isinstance(call.func, ast.Name) and call.func.id in self.classes:
            self.objects = True
            return "class:" + call.func.id
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call):
            inner = self.bindings.resolve(call.func.value.func)
            if inner is not None:
                return f"{inner}().{call.func.attr}"
        return "?"

    def _stmts(self, body: list[ast.stmt], ctx: _Ctx) -> None:
        """Each statement in turn; the expressions of a run of simple statements (no statement
        inside: most of them) in one walk, in the same order as one walk per statement (the
        walk records nothing a simple statement's origins read: the calls and comprehension
        loops of that run only)."""
        pending: list = []  # each simple statement's expressions, as its own walk would pop them
        for node in body:
            cls = type(node)
            if cls in NESTED:
                if pending:
                    self._flush(pending)
                    pending = []
                self._stmt(node, ctx)
            elif cls not in _NO_CALLS:
                part = self._simple(node, cls, ctx)
                if part:
                    pending.append(part)
        if pending:
            self._flush(pending)

    def _flush(self, pending: list) -> None:
        """One walk over the expressions of several simple statements, the first one's first."""
        if len(pending) == 1:
            self._exprs(pending[0])
            return
        stack: list = []
        for part in reversed(pending):
            stack += part
        self._exprs(stack)

    def _simple(self, node: Any, cls: type, ctx: _Ctx) -> list:
        """A statement with no statement inside: its origins recorded, and its expressions to
        walk, the last first (the walk's stack)."""
        if cls is _EXPR_STMT or cls is _RETURN:  # the commonest: one expression
            value = node.value
            return [(value, ctx, None)] if value is not None and type(value) not in _LEAVES else []
        if cls is _ASSIGN:  # the next commonest: targets, then the value
            value = node.value
            stack = [] if type(value) in _LEAVES else [(value, ctx, None)]
            for target in node.targets:
                if type(target) is _NAME:  # the commonest: _assign_origin's first case, inline
                    scope = ctx.scope
                    key = (id(scope) if scope is not None else None, target.id)
                    self._file_origin(key, self._call_label(value) if type(value) is _CALL else "?")
                else:
                    self._assign_origin(target, value, ctx)
            for target in reversed(node.targets):
                if type(target) not in _LEAVES:
                    stack.append((target, ctx, None))
            return stack
        if (cls is ast.AnnAssign or cls is ast.AugAssign) and node.value is not None:
            self._assign_origin(node.target, node.value if cls is ast.AnnAssign else None, ctx)
        children = [(child, ctx, None) for child in _expr_children(node) if type(child) not in _LEAVES]
        children.reverse()
        return children

    def _stmt(self, node: Any, ctx: _Ctx) -> None:
        """A statement with statements inside (its class in NESTED; the others: :meth:`_simple`)."""
        cls = type(node)
        if cls is ast.If:
            self._expr(node.test, ctx)
            self._stmts(node.body, ctx.child(ifs=ctx.ifs + ((node, "body"),), block=ctx.block + ((id(node), "body"),)))
            self._stmts(node.orelse, ctx.child(ifs=ctx.ifs + ((node, "orelse"),), block=ctx.block + ((id(node), "orelse"),)))
        elif cls is ast.For or cls is ast.AsyncFor:
            self._expr(node.iter, ctx)
            inner = ctx.child(loops=self._loop(node, ctx), block=ctx.block + ((id(node), "body"),))
            self._assign_origin(node.target, None, inner, "?")
            self._expr(node.target, inner)
            self._stmts(node.body, inner)
            self._stmts(node.orelse, ctx.child(block=ctx.block + ((id(node), "orelse"),)))
        elif cls is ast.FunctionDef or cls is ast.AsyncFunctionDef:
            self._function(node, ctx)
        elif cls is ast.With or cls is ast.AsyncWith:
            items = []
            for item in node.items:
                first = len(self.calls)
                self._expr(item.context_expr, ctx)
                if len(self.calls) > first and self.calls[first].node is item.context_expr:
                    self.calls[first].entered = True  # `with tf.Graph():` makes no fresh default
                expr = item.context_expr
                name = self.bindings.resolve(expr.func) if isinstance(expr, ast.Call) else None
                w = WithItem(item, node, ctx.scope, name)
                items.append(w)
                self.withs.append(w)
                if item.optional_vars is not None:
                    label = self._call_label(expr) if isinstance(expr, ast.Call) else "?"
                    if w.is_as_default:
                        label = GRAPH
                    self._assign_origin(item.optional_vars, None, ctx, label)
            block = ctx.block
            if not all(w.is_scope for w in items):
                block = block + ((id(node), "with"),)
            self._stmts(node.body, ctx.child(withs=ctx.withs + tuple(items), block=block))
        elif cls in _TRIES:
            self._stmts(node.body, ctx.child(trys=ctx.trys + ((node, "body"),), block=ctx.block + ((id(node), "body"),)))
            for handler in node.handlers:
                if handler.type is not None:
                    self._expr(handler.type, ctx)
                self._stmts(
                    handler.body,
                    ctx.child(trys=ctx.trys + ((node, "handler"),), block=ctx.block + ((id(handler), "handler"),)),
                )
            self._stmts(node.orelse, ctx.child(trys=ctx.trys + ((node, "orelse"),), block=ctx.block + ((id(node), "orelse"),)))
            self._stmts(node.finalbody, ctx.child(trys=ctx.trys + ((node, "finalbody"),)))
        elif cls is ast.ClassDef:
            for e in node.decorator_list + node.bases + [k.value for k in node.keywords]:
                self._expr(e, ctx)
            info = ClassInfo(node, tuple(self.bindings.resolve(b) for b in node.bases))
            if ctx.scope is None and ctx.cls is None:
                self.classes[node.name] = info
            self._stmts(node.body, ctx.child(cls=info))
        elif cls is ast.While:
            inner = ctx.child(loops=self._loop(node, ctx), block=ctx.block + ((id(node), "body"),))
            self._expr(node.test, inner)
            self._stmts(node.body, inner)
            self._stmts(node.orelse, ctx.child(block=ctx.block + ((id(node), "orelse"),)))
        elif cls is ast.Match:
            self._expr(node.subject, ctx)
            for case in node.cases:
                if case.guard is not None:
                    self._expr(case.guard, ctx)
                self._stmts(case.body, ctx.child(block=ctx.block + ((id(case), "case"),)))

    def _loop(self, node: Any, ctx: _Ctx) -> tuple:
        """The loops around a loop's body: ``node`` added as a :class:`Loop`, except in a test
        module, where a loop enumerates cases (dtypes, shapes, strategies, examples) and each
        test builds into a graph of its own: what the body builds per case is no repetition."""
        if self.in_tests:
            return ctx.loops
        loop = Loop(node, ctx.scope, depth=(len(ctx.withs), len(ctx.ifs)))
        self.loops.append(loop)
        return ctx.loops + (loop,)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, ctx: _Ctx) -> None:
        for dec in node.decorator_list:
            if isinstance(dec, (ast.Name, ast.Attribute)):
                name = self.bindings.resolve(dec)
                if name is not None:
                    self._record_call(dec, name, ctx, None, decorator=True)
            else:
                self._expr(dec, ctx)
        args = node.args
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self._expr(default, ctx)
        params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
        parent, cls = ctx.scope, ctx.cls
        is_method = cls is not None and (parent is None or parent.cls is not cls)
        if cls is not None and is_method:
            qual = f"{cls.name}.{node.name}"
        else:
            qual = f"{parent.qualname}.{node.name}" if parent is not None else node.name
        owner = ctx.cls if is_method else (parent.cls if parent is not None else None)
        fn = Function(node, qual, owner, parent, params=frozenset(params), is_method=is_method)
        if cls is not None and is_method:
            cls.methods[node.name] = fn
        elif parent is not None:
            parent.children[node.name] = fn
        elif ctx.cls is None:
            self.module_functions[node.name] = fn
        self.functions.append(fn)
        for p in params:
            self._file_origin((id(fn), p), "?")
        self._stmts(node.body, _Ctx(scope=fn, cls=fn.cls))

    def _record_call(self, node: ast.expr, name: str | None, ctx: _Ctx, parent: ast.Call | None, decorator: bool = False) -> CallSite:
        site = CallSite(
            node, name, ctx.scope, ctx.cls, ctx.loops, ctx.withs, ctx.trys, ctx.ifs, ctx.block, parent, decorator
        )
        self.calls.append(site)
        if ctx.scope is not None:
            ctx.scope.calls.append(site)
        for loop in ctx.loops:
            loop.calls.append(site)
        return site

    def _expr(self, root: ast.AST, ctx: _Ctx) -> None:
        """Every call in an expression, iteratively (deep expressions do not recurse)."""
        if type(root) not in _LEAVES:
            self._exprs([(root, ctx, None)])

    def _exprs(self, stack: list) -> None:
        """Every call in the expressions of ``stack`` — ``(node, ctx, parent call)``, the last
        first — in one walk. Names and constants hold no call: they are never pushed."""
        pop, push, resolve, add = stack.pop, stack.append, self.bindings.resolve, self.calls.append
        while stack:
            node, c, parent = pop()
            cls = type(node)  # ast.parse makes exactly these classes, never subclasses
            if cls is _CALL:
                func = node.func
                # (what _record_call does, inline: one site per call of the file)
                scope = c.scope
                site = CallSite(node, resolve(func), scope, c.cls, c.loops, c.withs, c.trys, c.ifs, c.block, parent)
                add(site)
                if scope is not None:
                    scope.calls.append(site)
                for loop in c.loops:
                    loop.calls.append(site)
                while type(func) is _ATTRIBUTE:  # ``a.b.c(...)``: only its root can hold a call
                    func = func.value
                if type(func) not in _LEAVES:
                    push((func, c, None))
                for arg in node.args:
                    if type(arg) not in _LEAVES:
                        push((arg, c, node))
                for kw in node.keywords:
                    if type(kw.value) not in _LEAVES:
                        push((kw.value, c, node))
            elif cls is _ATTRIBUTE:
                value = node.value
                while type(value) is _ATTRIBUTE:
                    value = value.value
                if type(value) not in _LEAVES:
                    push((value, c, None))
            elif cls is _LAMBDA:
                for d in node.args.defaults:
                    if type(d) not in _LEAVES:
                        push((d, c, None))
            elif cls in _COMP_TYPES:
                gens = node.generators
                push((gens[0].iter, c, None))
                inner = c.child(loops=self._loop(node, c), block=c.block + ((id(node), "comp"),))
                for gen in gens:
                    if gen is not gens[0]:
                        push((gen.iter, inner, None))
                    for cond in gen.ifs:
                        push((cond, inner, None))
                if cls is ast.DictComp:
                    push((node.key, inner, None))
                    push((node.value, inner, None))
                else:
                    push((node.elt, inner, None))
            else:  # as _expr_children, without its list
                keep = parent if cls is _STARRED else None
                spec = _parts.get(cls)
                if spec is None:
                    spec = _parts[cls] = _parts_of(node)
                for name, many in spec:
                    value = getattr(node, name)
                    if many:
                        for item in value:
                            if item is not None and type(item) not in _LEAVES:
                                push((item, c, keep))
                    elif value is not None and type(value) not in _LEAVES:
                        push((value, c, keep))

    def _link_calls(self) -> None:
        """Which of the user's own functions and classes each call reaches."""
        for site in self.calls:
            node = site.node
            if site.decorator or type(node) is not _CALL:
                continue
            func: Any = node.func  # `cls is _NAME` below narrows nothing for mypy
            target = None
            cls = type(func)
            if cls is _NAME:
                scope = site.scope
                while scope is not None and target is None:
                    target = scope.children.get(func.id)
                    if target is not None and (id(scope), func.id) in self._origins:
                        target = None  # the name is bound again (``f = wrap(f)``): not that def
                        break
                    scope = scope.parent
                if target is None and func.id not in self.bindings.names and (None, func.id) not in self._origins:
                    target = self.module_functions.get(func.id)
                    if target is None and func.id in self.classes:
                        site.local_class = self.classes[func.id]
            elif cls is _ATTRIBUTE and type(func.value) is _NAME and func.value.id == "self" and site.cls is not None:
                target = site.cls.method(func.attr)
            elif cls is _ATTRIBUTE and self.objects and origin_key(func.value, site.scope) is not None:
                # ``agent.act(s)``, ``self.brain.predict(s)``: an object of one class of the file
                labels = self.module.origins(func.value, site.scope)
                if len(labels) == 1:
                    (label,) = labels
                    if label.startswith("class:"):
                        owner = self.classes.get(label[6:])
                        if owner is not None:
                            target = owner.method(func.attr)
            if target is not None and type(target) is Function:
                site.target = target
                target.callers.append(site)


    def _link_parameter_calls(self) -> None:
        """``agent.act(s)`` where ``agent`` is a parameter that every caller of its function
        passes an object of one class of the file (``play_one(env, agent)`` after ``agent =
        Agent()``): that class's method. A few rounds, as each link can give a function the
        callers the next one needs. (Without an object of a class of the file, none.)"""
        for _ in range(3 if self.objects else 0):
            linked = False
            for site in self.calls:
                func: Any = site.node.func if type(site.node) is _CALL else None
                scope = site.scope
                if (
                    site.target is not None or site.decorator or type(func) is not _ATTRIBUTE
                    or type(func.value) is not _NAME or scope is None or func.value.id not in scope.params
                    or func.value.id == "self" or not scope.callers
                ):
                    continue
                owner = self._class_passed(scope, func.value.id)
                target = owner.method(func.attr) if owner is not None else None
                if target is not None and type(target) is Function:
                    site.target = target
                    target.callers.append(site)
                    linked = True
            if not linked:
                return

    def _class_passed(self, fn: Function, param: str) -> ClassInfo | None:
        """The one class of the file whose objects every caller of ``fn`` passes for ``param``."""
        found = None
        for caller in fn.callers:
            value = passed_for(fn, param, caller.node) if type(caller.node) is _CALL else None
            if value is None or origin_key(value, caller.scope) is None:
                return None
            labels = self.module.origins(value, caller.scope)
            if len(labels) != 1:
                return None
            (label,) = labels
            owner = self.classes.get(label[6:]) if label.startswith("class:") else None
            if owner is None or (found is not None and owner is not found):
                return None
            found = owner
        return found


_SAME = object()  # a part of :meth:`_Ctx.child` left as it is


class _Ctx:
    __slots__ = ("scope", "cls", "loops", "withs", "trys", "ifs", "block")

    def __init__(
        self,
        scope: Function | None = None,
        cls: ClassInfo | None = None,
        loops: tuple = (),
        withs: tuple = (),
        trys: tuple = (),
        ifs: tuple = (),
        block: tuple = (),
    ) -> None:
        self.scope, self.cls, self.loops, self.withs = scope, cls, loops, withs
        self.trys, self.ifs, self.block = trys, ifs, block

    def child(
        self, *, cls: Any = _SAME, loops: Any = _SAME, withs: Any = _SAME, trys: Any = _SAME, ifs: Any = _SAME, block: Any = _SAME
    ) -> "_Ctx":
        """This context with the given parts replaced (the same function)."""
        return _Ctx(
            self.scope,
            self.cls if cls is _SAME else cls,
            self.loops if loops is _SAME else loops,
            self.withs if withs is _SAME else withs,
            self.trys if trys is _SAME else trys,
            self.ifs if ifs is _SAME else ifs,
            self.block if block is _SAME else block,
        )

