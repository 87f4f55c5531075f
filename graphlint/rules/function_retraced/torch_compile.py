"""GL501's PyTorch form in ``graphlint check``: a ``torch.compile``d def called in a loop that
makes dynamo compile it again on every call, as torch 2.13 really does (docs/torch.md, measured
with 12 calls: 8 compiles, the recompile limit, then eager for the rest of the program):

- a compiled ``nn.Module`` whose ``forward`` changes an ``int`` attribute of the module
  (``self.step += 1``, the attribute set to an int in ``__init__``): dynamo treats it as a
  constant, and every new value fails a guard — whatever ``dynamic`` says;
- ``torch.compile(..., dynamic=False)`` called with a tensor whose shape follows the loop
  (``torch.ones(length, 3)``, ``x[:i]``) or a Python number that changes per iteration: with
  the default ``dynamic=None`` a change makes the size symbolic after one more compile (2 in
  all, silent here), under ``dynamic=False`` each new shape or number is a new compile.

A loop that runs no more times (a shape or number that takes no more values) than the runtime
rule's ``max-traces`` stays silent; so does an argument marked dynamic in the loop
(``torch._dynamo.mark_dynamic``) or one the function never reads (dynamo guards only on what it
reads: 1 compile), a counter kept in a tensor buffer, and a file that sets
``allow_unspec_int_on_nn_module``.
"""

from __future__ import annotations

import ast

from graphlint.findings import Severity
from graphlint.rules._torch import module_int_fix, number_fix, shape_fix
from graphlint.rules.function_retraced.values import distinct_keys, values_around
from graphlint.static.hits import Hit
from graphlint.static.model.module import Module, spells
from graphlint.static.model.repeats import times_run
from graphlint.static.model.torch_compiled import (
    MARK_DYNAMIC, Compiled, compiled_callee, compiled_defs, method,
)
from graphlint.static.model.values import CONST, Var, assignments, const_int, dotted_name, walk_scope

#: dynamo's default ``torch._dynamo.config.recompile_limit`` in torch 2.13.
RECOMPILE_LIMIT = 8
_TENSOR_SIZES = frozenset({
    "torch.zeros", "torch.ones", "torch.empty", "torch.randn", "torch.rand", "torch.eye", "torch.randperm",
})
#: Calls whose size is one argument: its position, and its keyword.
_SIZE_AT = {"torch.full": (0, "size"), "torch.randint": (-1, "size"), "torch.linspace": (2, "steps")}
_RESHAPES = frozenset({"view", "reshape", "expand", "new_zeros", "new_ones", "new_empty"})


def recompiled_calls(module: Module, options: dict) -> list[Hit]:
    """The hits of GL501's PyTorch form in ``module``."""
    if not spells(module, "torch"):
        return []
    limit = options.get("max-traces", 5)
    inside = {id(c.fn) for c in compiled_defs(module)}
    out = []
    for site in module.calls:
        if site.decorator or not isinstance(site.node, ast.Call) or not (site.loops or site.scope is not None):
            continue
        if site.scope is not None and id(site.scope) in inside:
            continue  # a call dynamo traces itself
        looping = site if site.loops else _caller_in_a_loop(module, site, limit, inside)
        if looping is None:
            continue
        compiled = compiled_callee(module, site)
        if compiled is None:
            continue
        hit = None
        if compiled.cls is not None:
            hit = _counter_hit(module, site, looping, compiled, limit)
        if hit is None and compiled.static_shapes and site.loops:
            hit = _static_shapes_hit(module, site, compiled, limit)
        if hit is not None:
            out.append(hit)
    return out


# -- an int attribute of the module changed in forward --------------------------------------------
def int_counters(module: Module, compiled: Compiled) -> list[tuple[str, ast.stmt]]:
    """``(attribute, statement)`` for each int attribute of the module that ``forward`` changes on
    every call: set to an int literal in ``__init__``, never anything but an int, and changed by
    ``self.a += n`` (or ``self.a = self.a + n``) on forward's straight path."""
    cls = compiled.cls
    if cls is None or "allow_unspec_int_on_nn_module" in module.text:
        return []
    init = method(module, cls, "__init__")
    ints = _int_attributes(init) if init is not None else set()
    found = []
    for stmt in _straight(compiled.fn.node.body):
        attr = _changed_by_a_number(stmt)
        if attr is not None and attr in ints and _only_ints(module, cls, attr):
            found.append((attr, stmt))
    return found


def _straight(body):
    """The statements of a block that run whenever it does: into ``with`` blocks, not into
    ``if``, loops or ``try``."""
    for stmt in body:
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _straight(stmt.body)
        else:
            yield stmt


def _self_attr(node) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _int(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _changed_by_a_number(stmt) -> str | None:
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, (ast.Add, ast.Sub)) and _int(stmt.value):
        return _self_attr(stmt.target)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.BinOp):
        attr = _self_attr(stmt.targets[0])
        value = stmt.value
        if attr is not None and isinstance(value.op, (ast.Add, ast.Sub)) and _self_attr(value.left) == attr and _int(value.right):
            return attr
    return None


def _int_attributes(init) -> set[str]:
    return {
        attr for stmt in _straight(init.node.body)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _int(stmt.value)
        for attr in [_self_attr(stmt.targets[0])] if attr is not None
    }


def _only_ints(module: Module, cls, attr: str) -> bool:
    """Every binding of ``self.attr`` in the class is an int literal or an int step of itself,
    and no ``register_buffer(attr, ...)`` makes it a tensor."""
    for fn in cls.methods.values():
        for node in walk_scope(fn.node.body):
            if isinstance(node, ast.Assign) and any(_self_attr(t) == attr for t in node.targets):
                if not (_int(node.value) or _changed_by_a_number(node) == attr):
                    return False
            elif isinstance(node, ast.AugAssign) and _self_attr(node.target) == attr and not _int(node.value):
                return False
            elif (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("register_buffer", "register_parameter") and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == attr
            ):
                return False
    return True


def _caller_in_a_loop(module: Module, site, limit: int, inside: set):
    """A call of the function around ``site`` in a loop of more than ``limit`` passes (or of
    unknown count), outside any compiled code: the calls of the compiled module then repeat too."""
    fn = site.scope
    if fn is None or not fn.callers or site.ifs or site.trys:
        return None
    for caller in fn.callers:
        if not caller.loops or (caller.scope is not None and id(caller.scope) in inside):
            continue
        runs = times_run(module, caller)
        if runs is None or runs > limit:
            return caller
    return None


def _counter_hit(module: Module, site, looping, compiled: Compiled, limit: int) -> Hit | None:
    """``looping``: the call in a loop that repeats ``site`` (the site itself, or a call of the
    function around it)."""
    counters = int_counters(module, compiled)
    runs = times_run(module, looping)
    if not counters or (runs is not None and runs <= limit):
        return None
    attr, stmt = counters[0]
    cls = compiled.cls
    assert cls is not None  # int_counters found some
    reaches = runs is not None and runs > RECOMPILE_LIMIT  # the call after the 8th compile
    where = "in this loop" if looping is site else f"of {site.scope.display}, which is called in a loop (line {looping.line})"
    message = (
        f"{compiled.display} is compiled again on every call {where}: it changes `self.{attr}` "
        f"(`{ast.unparse(stmt)}`, line {stmt.lineno}), an int attribute of `{cls.name}`, which torch.compile treats "
        f"as a constant; {_limit_text(reaches)}"
    )
    related = (
        (stmt, f"`self.{attr}` changes on every call of {compiled.display}"),
        (compiled.anchor, f"`{cls.name}` is compiled here"),
        *(((looping.node, f"{site.scope.display} is called here"),) if looping is not site else ()),
        (looping.loops[-1].node, "the loop"),
    )
    fix = module_int_fix(f"`self.{attr}`", f"self.{attr}")
    return Hit(site.node, message, related, fix, Severity.ERROR if reaches else None)


def _limit_text(reaches: bool) -> str:
    if reaches:
        return (
            f"after {RECOMPILE_LIMIT} compiles (torch._dynamo.config.recompile_limit) dynamo gives up on it and runs "
            "it eagerly (uncompiled) for the rest of the program"
        )
    return f"after {RECOMPILE_LIMIT} compiles (torch._dynamo.config.recompile_limit) dynamo would run it eagerly (uncompiled)"


# -- dynamic=False: a new shape or number per iteration ---------------------------------------------
def _static_shapes_hit(module: Module, site, compiled: Compiled, limit: int) -> Hit | None:
    values = values_around(module, site)
    once = values.once_per_run(site)
    loop = site.loops[-1].node
    assigned = _assigned_in(loop)
    marked = _marked_dynamic(module, site.loops[0].node)
    params = compiled.params
    args = [(params[i] if i < len(params) else f"argument {i + 1}", a)
            for i, a in enumerate(site.node.args) if not isinstance(a, ast.Starred)]
    args += [(k.arg, k.value) for k in site.node.keywords if k.arg]
    read = {n.id for n in ast.walk(compiled.fn.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    causes = []  # (param, Var, dims)
    for param, arg in args:
        if param not in read or (isinstance(arg, ast.Name) and arg.id in marked):
            continue  # dynamo guards only on what the function reads
        var = values.number(arg)
        dims: list[int] = []
        if var is None or not var.varying:
            var, dims = _shape(module, values, arg, assigned, 0)
        if var is None or not var.varying or var.loop in once:
            continue
        causes.append((param, var, dims))
    keys = distinct_keys([var for _, var, _ in causes])
    if not causes or (keys is not None and keys <= limit):
        return None
    reaches = keys is not None and keys > RECOMPILE_LIMIT
    said = "; ".join(
        f"`{param}` is {var.what}" + (f" ({var.bound} values)" if var.bound else "") for param, var, _ in causes
    )
    kinds = " and ".join(dict.fromkeys("shape" if var.kind == "shape" else "Python number" for _, var, _ in causes))
    message = (
        f"{compiled.display} is compiled again on every iteration of this loop: {said}; under "
        f"`torch.compile(..., dynamic=False)` each new {kinds} is a new compile"
    )
    if reaches:
        message += f", and {_limit_text(True)}"
    fixes = [shape_fix(param, dims or [0], False) for param, var, dims in causes if var.kind == "shape"]
    numbers = ", ".join(f"`{param}`" for param, var, _ in causes if var.kind != "shape")
    if numbers:
        fixes.append(number_fix(numbers, False))
    related = (
        (compiled.fn.node, f"{compiled.display} is defined here"),
        (compiled.anchor, "compiled here with `dynamic=False`"),
        (site.loops[-1].node, "the loop"),
    )
    return Hit(site.node, message, related, " ".join(fixes), Severity.ERROR if reaches else None)


def _assigned_in(loop) -> dict[str, list]:
    """Plain names bound in the loop's body: name -> the values (None: not by ``=``)."""
    out: dict[str, list] = {}
    for node in walk_scope(getattr(loop, "body", [])):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, []).append(node.value if target is n else None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr)):
            bound = getattr(node, "target", None) or getattr(node, "optional_vars", None)
            for n in ast.walk(bound) if bound is not None else ():
                if isinstance(n, ast.Name):
                    out.setdefault(n.id, []).append(None)
    return out


def _marked_dynamic(module: Module, loop) -> set[str]:
    """The names ``torch._dynamo.mark_dynamic(name, ...)`` marks in the loop."""
    return {
        node.args[0].id for node in ast.walk(loop)
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name)
        and dotted_name(module, node.func) in MARK_DYNAMIC
    }


def _shape(module: Module, values, e, assigned: dict, depth: int) -> tuple[Var | None, list[int]]:
    """A tensor (or sequence) whose shape follows the loop: ``(Var of kind shape, the dims that
    vary)``, else ``(None, [])``."""
    if depth > 3:
        return None, []
    if isinstance(e, ast.Name):
        bound = assigned.get(e.id)
        if bound and len(bound) == 1 and bound[0] is not None:
            return _shape(module, values, bound[0], assigned, depth + 1)
        return None, []
    if isinstance(e, ast.Subscript):
        return _sliced(module, values, e)
    if not isinstance(e, ast.Call):
        return None, []
    name = dotted_name(module, e.func)
    sizes: list[tuple[int, ast.expr]] = []
    if name in _TENSOR_SIZES or name == "torch.arange":
        given = e.args[0].elts if len(e.args) == 1 and isinstance(e.args[0], (ast.Tuple, ast.List)) else e.args
        sizes = list(enumerate(given)) if name != "torch.arange" else [(0, a) for a in e.args]
        sizes += [(0, k.value) for k in e.keywords if k.arg in ("size", "end", "start", "n")]
    elif name in _SIZE_AT:
        pos, kw = _SIZE_AT[name]
        arg = next((k.value for k in e.keywords if k.arg == kw), None)
        if arg is None and e.args and (pos < 0 or len(e.args) > pos) and (pos >= 0 or len(e.args) >= 2):
            arg = e.args[pos]
        if arg is not None:
            sizes = list(enumerate(arg.elts)) if isinstance(arg, (ast.Tuple, ast.List)) else [(0, arg)]
    elif isinstance(e.func, ast.Attribute) and e.func.attr in _RESHAPES:
        given = e.args[0].elts if len(e.args) == 1 and isinstance(e.args[0], (ast.Tuple, ast.List)) else e.args
        sizes = list(enumerate(given))
    elif isinstance(e.func, ast.Attribute) and e.func.attr == "narrow" and len(e.args) == 3:
        first = e.args[0]
        dim = first.value if isinstance(first, ast.Constant) and type(first.value) is int else 0
        var = values.number(e.args[2])
        return (_shape_var(var, e), [dim]) if var is not None and var.varying else (None, [])
    varying = [(d, values.number(s)) for d, s in sizes]
    varying = [(d, v) for d, v in varying if v is not None and v.varying]
    if not varying:
        return None, []
    return _shape_var(varying[0][1], e), sorted({d for d, _ in varying})


def _sliced(module: Module, values, e: ast.Subscript) -> tuple[Var | None, list[int]]:
    """``x[:i]``, ``x[i:]``, ``x[:, :i]``: a slice one of whose ends follows the loop (both ends
    moving, ``x[i:i + 4]``, may keep its length: not taken). Of a tensor whose size the source
    fixes (``torch.ones(20, 3)``), a dimension of ``n`` takes at most ``n + 1`` lengths."""
    parts = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
    found, dims = None, []
    sizes = _fixed_sizes(module, values.scope, e.value)
    for d, part in enumerate(parts):
        if not isinstance(part, ast.Slice):
            continue
        ends = [values.number(x) if x is not None else CONST for x in (part.lower, part.upper)]
        if None in ends:
            continue
        moving = [v for v in ends if v.varying]
        if len(moving) == 1:
            var = moving[0]
            if sizes is not None and d < len(sizes):
                bound = sizes[d] + 1 if var.bound is None else min(var.bound, sizes[d] + 1)
                var = var._replace(bound=bound)  # the lengths clip at the size
            found = found or var
            dims.append(d)
    return (_shape_var(found, e), dims) if found is not None else (None, [])


def _fixed_sizes(module: Module, scope, expr) -> list[int] | None:
    """The sizes of a tensor a name is bound to once, by ``torch.ones(20, 3)`` and the like."""
    if not isinstance(expr, ast.Name):
        return None
    found = assignments(module, scope).get(expr.id) if scope is not None else None
    if not found:
        found = assignments(module, None).get(expr.id)
    if not found or len(found) != 1 or found[0][0] != "=" or not isinstance(found[0][1], ast.Call):
        return None
    call = found[0][1]
    if dotted_name(module, call.func) not in _TENSOR_SIZES or call.keywords:
        return None
    given = call.args[0].elts if len(call.args) == 1 and isinstance(call.args[0], (ast.Tuple, ast.List)) else call.args
    sizes = [const_int(module, scope, a) for a in given]
    return None if None in sizes else sizes  # type: ignore[return-value]  # no None left


def _shape_var(size: Var, e) -> Var:
    source = f"`{size.source}`" if size.source else "the loop"
    return Var("shape", size.bound, size.loop, f"a tensor whose shape (`{ast.unparse(e)}`) follows {source}", size.source)
