"""How often code runs: the one place that counts it.

- the loops around a call and how many times each runs when the source fixes it
  (:func:`loop_count`), and how many times they run a call (:func:`times_run`), where an
  ``if`` on a loop's counter may let only a few of its passes through (:func:`guard_bound`);
- the guards that let a call run once (:func:`guarded`: ``if op is None:``, ``if step == 0:``,
  ``if key not in cache: cache[key] = ...``);
- why a function runs again and again (:func:`per_call`: a per-call method, a web handler, a
  thread target started in a loop, a caller in a loop or in such a function), and calls made
  where each run starts afresh (:func:`isolated`).

Every check that compares a count with a runtime threshold asks here.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Iterable

from graphlint.static.model.project import loop_starts_fresh
from graphlint.static.model.scopes import NESTED, ONCE_METHODS, PER_CALL_METHODS, CallSite, Function, Loop, Reason
from graphlint.static.model.values import RANGES, dotted_name, iterations, unwrapped

if TYPE_CHECKING:
    from graphlint.static.model.module import Module


# -- loops ---------------------------------------------------------------------------------
def loop_count(module: Module, loop: Loop) -> int | None:
    """How many times a loop's body runs when the source fixes it (its iterable's
    :func:`iterations`); None for a ``while`` loop or an iterable of unknown length."""
    key = ("loop-count", id(loop.node))
    cache = module.cache
    if key not in cache:
        node: Any = loop.node  # a for/while statement or a comprehension
        it = node.generators[0].iter if loop.is_comprehension else getattr(node, "iter", None)
        cache[key] = None if it is None else iterations(module, loop.scope, it)
    return cache[key]



def times_run(module: Module, site: CallSite) -> int | None:
    """How many times the loops around a call site run it (the product of their
    :func:`loop_count`, or of how many of a loop's passes an ``if`` on its counter lets the
    call run: :func:`guard_bound`); None when the source does not fix one of them."""
    total = 1
    loops = site.loops
    for i, loop in enumerate(loops):
        n = loop_count(module, loop)
        end = loops[i + 1].depth[1] if i + 1 < len(loops) else len(site.ifs)
        bound = guard_bound(module, loop, site.ifs[loop.depth[1]:end])
        if bound is not None:
            n = bound if n is None else min(n, bound)
        if n is None:
            return None
        total *= n
    return total


def guard_bound(module: Module, loop: Loop, ifs: tuple) -> int | None:
    """How many passes of a ``for`` loop over ``range``/``enumerate`` the ``if`` parts ``ifs``
    (those between this loop and the next one in, as ``(ast.If, branch)``) let through, when
    the counter fixes it: ``if step == total // 2:`` once, ``if epoch in (30, 60, 90):`` three
    times, ``if step % (steps // 2) == 0:`` twice in ``range(steps)``, ``if step % 50 == 0:``
    twice in ``range(100)`` (a counter takes each
    value once; a value compared with must not change in the loop). None when unknown."""
    counter = _counter(module, loop.node)
    if counter is None:
        return None
    found = None
    for node, branch in ifs:
        if branch != "body":
            continue
        n = _passes(module, loop, counter, node.test)
        if n is not None:
            found = n if found is None else min(found, n)
    return found


def _counter(module: Module, node: Any) -> str | None:  # a loop node: `type(node) in` does not narrow
    """The name a ``for`` loop counts with: ``i`` in ``for i in range(...)`` or ``for i, x in
    enumerate(...)``; None for any other loop."""
    it = unwrapped(module, node.iter) if type(node) in (ast.For, ast.AsyncFor) else None
    if not isinstance(it, ast.Call):
        return None
    name = dotted_name(module, it.func)
    target = node.target
    if name in RANGES and isinstance(target, ast.Name):
        return target.id
    if name == "enumerate" and isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id
    return None


def _passes(module: Module, loop: Loop, counter: str, test: ast.expr) -> int | None:
    if isinstance(test, ast.BoolOp):
        counts = [_passes(module, loop, counter, v) for v in test.values]
        if isinstance(test.op, ast.And):
            known = [n for n in counts if n is not None]
            return min(known) if known else None
        return sum(counts) if all(n is not None for n in counts) else None  # type: ignore[arg-type]  # no None
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, ast.Eq):
        if _is_name(right, counter):
            left, right = right, left
        if _is_name(left, counter) and _fixed_in(module, loop, right):
            return 1
        if isinstance(left, ast.Constant):
            left, right = right, left
        if isinstance(right, ast.Constant) and type(right.value) is int and right.value == 0:
            return _fraction(module, loop, counter, left)
        return None
    if isinstance(op, ast.In) and _is_name(left, counter) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        return len(right.elts) if not any(isinstance(e, ast.Starred) for e in right.elts) else None
    return None


def _is_name(node: ast.AST | None, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _fixed_in(module: Module, loop: Loop, expr: ast.expr) -> bool:
    """Whether ``expr`` reads no name the loop binds (its target, or any name assigned in it)."""
    names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    if not names:
        return True
    return not names & bound_in(module, loop) and not any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in ast.walk(expr))


def _fraction(module: Module, loop: Loop, counter: str, expr: ast.expr) -> int | None:
    """``counter % (stop // k)`` (or ``% int(stop / k)``) in ``range(..., stop)``: k passes."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod) and _is_name(expr.left, counter)):
        return None
    period = expr.right
    if isinstance(period, ast.Constant) and type(period.value) is int and period.value >= 1:
        count = loop_count(module, loop)  # ``step % 50 == 0`` in ``range(100)``: twice
        return None if count is None else -(-count // period.value)
    if isinstance(period, ast.Call) and isinstance(period.func, ast.Name) and period.func.id == "int" and len(period.args) == 1:
        period = period.args[0]
        if not isinstance(period, ast.BinOp) or not isinstance(period.op, ast.Div):
            return None
    elif not isinstance(period, ast.BinOp) or not isinstance(period.op, ast.FloorDiv):
        return None
    k = period.right
    if not (isinstance(k, ast.Constant) and type(k.value) is int and k.value >= 1):
        return None
    it = unwrapped(module, loop.node.iter)  # type: ignore[attr-defined]  # a for loop: _counter found its counter
    if not isinstance(it, ast.Call) or dotted_name(module, it.func) not in RANGES or not it.args or not _fixed_in(module, loop, period.left):
        return None
    args = it.args
    stop = args[0] if len(args) == 1 else args[1]
    if isinstance(stop, ast.BinOp) and isinstance(stop.op, (ast.Add, ast.Sub)) and isinstance(stop.right, ast.Constant):
        stop = stop.left  # range(1, steps + 1)
    return k.value if ast.dump(stop) == ast.dump(period.left) else None


def runs_at_most(module: Module, site: CallSite, limit: int) -> bool:
    """Whether the source says the loops around a call site run it at most ``limit`` times (a
    runtime rule's threshold: the static form stays silent where the runtime would)."""
    n = times_run(module, site)
    return n is not None and n <= limit


def loops_run_at_most(module: Module, loops: Iterable[Loop], limit: int) -> bool:
    """Whether ``for`` loops run, all together, a known number of times no more than
    ``limit``, counting each loop's iterable as the source writes it (names read at module
    level, no ``if`` on a counter): GL502's threshold, ``max-per-site`` functions made at one
    line. A ``while`` loop or a comprehension has no such count."""
    total = 1
    for loop in loops:
        node = loop.node
        if not isinstance(node, (ast.For, ast.AsyncFor)):
            return False
        key = ("loop-bound", id(node))
        if key not in module.cache:
            module.cache[key] = iterations(module, None, node.iter)
        bound = module.cache[key]
        if bound is None:
            return False
        total *= bound
    return total <= limit


def runs_more_than_once(module: Module, site: CallSite) -> bool:
    """A loop around the call that runs more than once, as far as the source tells (a loop of
    unknown count may)."""
    n = times_run(module, site)
    return n is None or n >= 2


def bound_in(module: Module, loop: Loop) -> set:
    """Names (and ``self.x`` attributes, as ``.x``) assigned inside a loop, its target included."""
    key = ("bound", id(loop.node))
    found = module.cache.get(key)
    if found is None:
        found = set()
        for node in ast.walk(loop.node):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                found.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                found.add("." + node.attr)
        module.cache[key] = found
    return found


# -- guards --------------------------------------------------------------------------------
def first_time_guard(test: ast.expr) -> bool:
    """``if step == 0:``, ``if op is None:``, ``if not built:``, ``if i == n - 1:`` — done
    once, not every time. A mode switch (``if mode == "train":``) or ``if step % 100 == 0:``
    is not one."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    if isinstance(test, ast.Compare) and any(isinstance(op, (ast.Eq, ast.Is)) for op in test.ops):
        periodic = isinstance(test.left, ast.BinOp) and isinstance(test.left.op, ast.Mod)
        values = [test.left, *test.comparators]
        return not periodic and any(_once_value(v) for v in values) and not any(_process_rank(v) for v in values)
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.And):
            return any(first_time_guard(v) for v in test.values)
        return all(first_time_guard(v) for v in test.values) or _absent_or_stale(test.values)
    return False


def _absent_or_stale(values: list[ast.expr]) -> bool:
    """``if cache is None or cache.graph is not graph:`` — a cache made when it is missing, and
    made again only when what it was made for changed: the first test a first-time guard of the
    cache, each other a comparison of one of the cache's own attributes (not ``prev != value``,
    nor ``self.prev != value``: a value remembered to build again whenever it changes)."""
    first, rest = values[0], values[1:]
    if not (isinstance(first, ast.Compare) and first_time_guard(first)):
        return False
    cache = _chain(first.left)
    if cache is None:
        return False
    for value in rest:
        chain = _chain(value.left) if isinstance(value, ast.Compare) else None
        if chain is None or len(chain) <= len(cache) or chain[: len(cache)] != cache:
            return False
    return True


def _chain(node: ast.AST) -> tuple | None:
    """``a.b.c`` as ``("a", "b", "c")``; ``getattr(a, "b", None)`` reads as ``a.b``."""
    attrs = []
    while True:
        if isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
        ):
            attrs.append(node.args[1].value)
            node = node.args[0]
        else:
            return (node.id, *reversed(attrs)) if isinstance(node, ast.Name) else None


#: What names the process a program runs as (MPI's, Horovod's, torch.distributed's, JAX's):
#: ``if proc_id() == 0:`` picks the first process, in which it holds every time.
_RANKS = frozenset({"rank", "local_rank", "global_rank", "get_rank", "Get_rank", "proc_id", "process_index", "task_index"})


def _process_rank(node: ast.AST) -> bool:
    """``proc_id()``, ``hvd.rank()``, ``comm.Get_rank()``, ``args.local_rank``, ``rank``."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr in _RANKS
    return isinstance(node, ast.Name) and node.id in _RANKS


def _once_value(node: ast.AST) -> bool:
    """What a once-only comparison compares with: None, 0, a bool, or ``n - 1``."""
    if isinstance(node, ast.Constant):
        return node.value is None or node.value is False or node.value is True or node.value == 0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant)  # -1: the last
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub)


def guarded(ifs: Iterable[tuple[ast.If, str]], module: Module | None = None) -> bool:
    """Whether one of these ``(ast.If, branch)`` pairs is the body of a first-time guard. With
    ``module``, a guard on a value nothing sets (:func:`never_set`) is none: it runs every time."""
    if not ifs:  # (most calls: under no ``if``)
        return False
    return any(
        branch == "body"
        and ((first_time_guard(node.test) and not (module is not None and never_set(module, node))) or _cached_by_key(node))
        for node, branch in ifs
    )


def never_set(module: Module, node: ast.If) -> bool:
    """Whether ``if x is None:`` (``if not x:``, ``if args.ckpt is None:``) tests a value that
    nothing in the file ever sets to something else — its branch assigns nothing and no line
    of the file stores ``x`` but ``x = None`` — so the branch runs each time, not once (a
    mode switch, not a first-time guard). Unknown is set: ``self.x`` (any method may set it),
    a name declared ``global`` or ``nonlocal``, a branch that stores into any attribute or
    item (a cache) or calls a method of the value's object or passes it on."""
    test = node.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        tested = test.operand
    elif (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq))
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
    ):
        tested = test.left
    else:
        return False
    chain = _chain(tested)
    if chain is None or chain[0] == "self":
        return False
    root = chain[0]
    if len(chain) == 1 and root in _declared(module):
        return False
    if chain in _stored_chains(module):
        return False
    for stmt in node.body:
        for inner in ast.walk(stmt):
            if isinstance(inner, (ast.Attribute, ast.Subscript)) and isinstance(inner.ctx, ast.Store):
                return False
            if isinstance(inner, ast.Call):
                func_root = _chain(inner.func)
                if func_root is not None and func_root[0] == root and len(chain) > 1:
                    return False
                for arg in [*inner.args, *(k.value for k in inner.keywords)]:
                    if any(isinstance(n, ast.Name) and n.id == root for n in ast.walk(arg)):
                        return False
    return True


def _declared(module: Module) -> set[str]:
    """The names the file declares ``global`` or ``nonlocal`` somewhere, once per module: a
    walk of its statements alone (no expression holds a statement)."""
    found = module.cache.get("declared")
    if found is None:
        found = module.cache["declared"] = set()
        stack: list[Any] = list(module.tree.body)
        pop, extend, nested = stack.pop, stack.extend, NESTED.get
        while stack:
            node = pop()
            cls = type(node)
            if cls is ast.Global or cls is ast.Nonlocal:
                found.update(node.names)
            else:
                for name in nested(cls, ()):
                    extend(getattr(node, name))
    return found


#: Fields that never hold a node that stores a name (identifiers, operators, contexts, flags).
_NO_STORES = frozenset({"ctx", "op", "ops", "conversion", "kind", "type_comment", "attr", "id", "arg", "level", "is_async", "simple"})
_fields: dict[type, tuple[str, ...]] = {}


def _stored_chains(module: Module) -> set:
    """Every name and attribute chain (``("args", "ckpt")``) the file stores a value in, but
    for ``x = None`` (and ``= False``): once per module, in one walk of the tree (each node
    before the nodes under it, so an ``x = None`` is seen before its target). A name (the
    commonest node: it holds no other) is judged where it is met, a constant skipped: neither
    is pushed."""
    found = module.cache.get("stored-chains")
    if found is None:
        cleared: set[int] = set()
        found = set()
        stack: list[Any] = [module.tree]
        pop, push, node_type, fields_of = stack.pop, stack.append, ast.AST, _fields
        name_type, constant, store = ast.Name, ast.Constant, ast.Store
        while stack:
            node = pop()
            cls = type(node)
            if cls is ast.Assign:
                value = node.value
                if type(value) is ast.Constant and value.value in (None, False):
                    cleared.update(id(t) for t in node.targets)
            elif cls is ast.Attribute and type(node.ctx) is store and id(node) not in cleared:
                chain = _chain(node)
                if chain is not None:
                    found.add(chain)
            names = fields_of.get(cls)
            if names is None:
                names = fields_of[cls] = tuple(f for f in cls._fields if f not in _NO_STORES)
            for name in names:
                part = getattr(node, name, None)
                item: Any
                for item in part if type(part) is list else (part,):
                    kind = type(item)
                    if kind is name_type:
                        if type(item.ctx) is store and id(item) not in cleared:
                            found.add((item.id,))  # (_chain of a name)
                    elif kind is not constant and isinstance(item, node_type):
                        push(item)
        module.cache["stored-chains"] = found
    return found


def _cached_by_key(node: ast.If) -> bool:
    """``if key not in cache: cache[key] = ...`` — made once per key, then looked up."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn)):
        return False
    key, cache = ast.dump(test.left), ast.dump(test.comparators[0])
    return any(
        isinstance(stmt, ast.Assign)
        and any(
            isinstance(t, ast.Subscript) and ast.dump(t.value) == cache and ast.dump(t.slice) == key
            for t in stmt.targets
        )
        for stmt in node.body
    )


# -- functions that run again and again ------------------------------------------------------
def memoized(fn: Function) -> bool:
    """``@functools.lru_cache`` / ``@cache`` / ``@memoize``...: what it builds, it builds once."""
    for dec in fn.node.decorator_list:
        node = dec.func if isinstance(dec, ast.Call) else dec
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        if name in ("lru_cache", "cache", "cached_property") or "memo" in name.lower():
            return True
    return False


def isolated(site: CallSite, module: Module | None = None) -> bool:
    """A call made under its own default graph, or in a loop that starts afresh each time
    (with ``module``, also through a helper of another module of the checked tree)."""
    if site.under_graph_default():
        return True
    if module is None:
        return any(loop.resets_state() for loop in site.loops)
    return any(loop_starts_fresh(module, loop) for loop in site.loops)

def per_call(module: Module, fn: Function) -> Reason | None:
    """Why ``fn`` runs again and again (a per-call method, called in a loop or from one).

    The answers are kept per module. Callers that call each other are followed once: a caller
    whose question is still open counts for nothing, and an answer "no" that leaned on such an
    open question is kept only if the first question asked comes out "no" too (else it is asked
    again later): the answers never depend on the order they are asked in."""
    memo = module.cache.get("per-call")
    if memo is None:
        memo = module.cache["per-call"] = {}
    query: _Query | None = module.cache.get("per-call-query")
    key = id(fn)
    if key in memo:
        if query is not None and key in query.tentative:
            query.cuts += 1
        return memo[key]
    outermost = query is None
    if query is None:
        query = module.cache["per-call-query"] = _Query()
    elif key in query.open:
        query.cuts += 1  # a cycle back to an open question: it adds no reason of its own
        return None
    query.open.add(key)
    cuts = query.cuts
    try:
        reason = _per_call(module, fn)
    finally:
        query.open.discard(key)
        if outermost:
            del module.cache["per-call-query"]
    memo[key] = reason
    if reason is None and query.cuts > cuts and not outermost:
        query.tentative.add(key)
    if outermost and reason is not None:
        for tentative in query.tentative:  # each may have leaned on a question now answered "yes"
            del memo[tentative]
    return reason


class _Query:
    """The outermost :func:`per_call` question being answered: the questions still open under
    it, how many times an open (or tentative) answer was leaned on, and the "no" answers that
    did (right if the outermost answer is "no": no open question came out "yes")."""

    __slots__ = ("open", "cuts", "tentative")

    def __init__(self) -> None:
        self.open: set[int] = set()
        self.cuts = 0
        self.tentative: set[int] = set()


def _per_call(module: Module, fn: Function) -> Reason | None:
    if fn.name in ONCE_METHODS:
        return None
    own = per_call_by_kind(module, fn)
    if own is not None:
        return own
    threads = _thread_targets(module)
    if id(fn) in threads:
        site = threads[id(fn)]
        return Reason(f"runs in a thread started in a loop (line {site.line})", site, site)
    for site in fn.callers:
        if isolated(site, module) or guarded(site.ifs):
            continue  # its own graph; or get-or-create: made once
        if site.loops:
            return Reason(f"is called in a loop (line {site.line})", site, site)
        if site.scope is not None and site.scope is not fn:
            caller = per_call(module, site.scope)
            if caller is not None:
                text = f"is called from {site.scope.display} (line {site.line}), which runs per call"
                return Reason(text, site, caller.origin)
    return None


def per_call_by_kind(module: Module, fn: Function) -> Reason | None:
    """Why ``fn`` runs again and again by what it is, whoever calls it: a per-call method of a
    long-lived object, a web handler, a Django view (:func:`per_call`'s reasons that name no
    call site). None for the others, and for a method that runs once (``__init__``)."""
    if fn.name in ONCE_METHODS:
        return None
    if fn.is_method and fn.name in PER_CALL_METHODS:
        return Reason("is a per-call method of a long-lived object")
    if _serves_requests(fn):
        return Reason("serves a web request (`@app.route`, `@router.get`...): it runs once per request")
    if _django_view(module, fn):
        return Reason("is a Django view (`def view(request)`): it runs once per request")
    return None


def _thread_targets(module: Module) -> dict:
    """The functions a loop starts a thread on (``Thread(target=self.handle)``
    per accepted connection): ``{id(function): the call that starts it}``. Once per file."""
    found = module.cache.get("thread-targets")
    if found is None:
        targets: dict[int, object] = {}  # id(function) -> the call that starts it in a thread
        found = module.cache["thread-targets"] = targets
        for site in module.calls:
            if site.name not in _SPAWNERS or not isinstance(site.node, ast.Call) or not site.loops or guarded(site.ifs):
                continue
            target = next((k.value for k in site.node.keywords if k.arg == "target"), None)
            fn = None
            if isinstance(target, ast.Name):
                scope = site.scope
                while scope is not None and fn is None:
                    fn = scope.children.get(target.id)
                    scope = scope.parent
                fn = fn or module.module_functions.get(target.id)
            elif (
                isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "self" and site.cls is not None
            ):
                fn = site.cls.methods.get(target.attr)
            if fn is not None:
                targets.setdefault(id(fn), site)
    return found


#: What starts a function in a thread of its own. Not ``multiprocessing.Process`` (nor a
#: ``Pool``): each process has its own default graph, sessions and Keras state, so a target that
#: builds its model builds it once in each process (an A3C's worker processes).
_SPAWNERS = frozenset({"threading.Thread", "threading.Timer"})
#: The decorators that make a function a web handler: Flask's ``@app.route``, FastAPI's and
#: Starlette's ``@app.get`` / ``@router.post``..., Sanic's and Quart's alike.
_ROUTES = frozenset({"route", "get", "post", "put", "patch", "delete", "api_route", "websocket"})


def _django_view(module: Module, fn: Function) -> bool:
    """A function of a module that imports Django, at its top level, whose first parameter is
    ``request``: a view, routed in ``urls.py`` and called per request."""
    args = fn.node.args.posonlyargs + fn.node.args.args
    if fn.is_method or fn.parent is not None or not args or args[0].arg != "request":
        return False
    return any(name == "django" or name.startswith("django.") for name in module.bindings.names.values())


def _serves_requests(fn: Function) -> bool:
    """Whether ``fn`` is registered as a web handler (``@app.route("/")``): called per request."""
    for dec in fn.node.decorator_list:
        if (
            isinstance(dec, ast.Call)
            and isinstance(dec.func, ast.Attribute)
            and dec.func.attr in _ROUTES
            and isinstance(dec.func.value, (ast.Name, ast.Attribute))
            and dec.args
            and isinstance(dec.args[0], ast.Constant)
            and isinstance(dec.args[0].value, str)
        ):
            return True
    return False
