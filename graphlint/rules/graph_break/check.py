"""GL506's static form: a line of a def that ``torch.compile`` certainly compiles
(:func:`~graphlint.static.model.torch_compiled.compiled_defs`) where dynamo breaks the graph, as
torch 2.13 really does (measured with the runtime probe): ``print(...)``, ``.item()`` and
``float()``/``int()``/``bool()`` of a tensor (unless ``capture_scalar_outputs``), ``.tolist()``,
a ``logging`` call, and an ``if``/``while`` on a tensor's value — also in the helpers the
compiled def calls (a method of the module, a function of the file), which dynamo inlines.
``.numpy()`` and ``assert`` on a tensor do not break the graph in 2.13: not reported.

Only what runs whenever the compiled def does: code under an ``if`` (a flag, or
``torch.compiler.is_compiling()``), in an ``except`` or ``else`` part, in a ``with`` block of a
context manager not torch's, after a ``return`` or in a nested def is left out, and so is a def
compiled with ``fullgraph=True`` (there torch itself raises at the break). A break in a loop or
in a ``try`` block makes dynamo skip the whole frame: an error, as at runtime.
"""

from __future__ import annotations

import ast

from graphlint.findings import Severity
from graphlint.rules._torch import BRANCH_FIX, CONVERT_FIX, LOGGING_FIX, PRINT_FIX, SCALAR_FIX
from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model.module import Module, spells
from graphlint.static.model.scopes import Function, resolve_name
from graphlint.static.model.torch_compiled import Compiled, compiled_defs, method
from graphlint.static.model.values import assignments, dotted_name

#: Tensor methods whose result is a tensor (what an ``if`` on it reads the value of).
_TENSOR_METHODS = frozenset({
    "sum", "mean", "any", "all", "max", "min", "amax", "amin", "norm", "abs", "prod", "std", "var",
    "count_nonzero", "isnan", "isinf", "isfinite", "argmax", "argmin", "exp", "log", "sqrt", "sigmoid",
    "detach", "clone", "float", "double", "half", "long", "int", "bool", "gt", "lt", "ge", "le", "eq", "ne",
    "logical_and", "logical_or", "logical_not", "square", "pow", "mul", "add", "sub", "div",
})
#: ``torch.*`` namespaces whose functions are no tensor operations.
_NOT_OPS = ("torch.cuda.", "torch.backends.", "torch.jit.", "torch.compiler.", "torch._dynamo.", "torch.distributed.",
            "torch.utils.", "torch.hub.", "torch.onnx.", "torch.fx.", "torch.export.", "torch.testing.", "torch.random.",
            "torch.mps.", "torch.cpu.", "torch.xpu.", "torch.overrides.", "torch.library.", "torch.amp.",
            "torch.profiler.", "torch.version.", "torch.autograd.", "torch.sym_")
#: ``torch.*`` functions that return a Python value, or a tensor dynamo may fold.
_NOT_TENSORS = frozenset({
    "torch.numel", "torch.equal", "torch.allclose", "torch.tensor", "torch.as_tensor", "torch.from_numpy",
    "torch.compile", "torch.load", "torch.save", "torch.device", "torch.manual_seed", "torch.typename",
    "torch.result_type", "torch.promote_types", "torch.can_cast", "torch.broadcast_shapes", "torch.no_grad",
    "torch.enable_grad", "torch.inference_mode", "torch.autocast", "torch.finfo", "torch.iinfo",
})
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
_DISABLED = frozenset({"torch.compiler.disable", "torch._dynamo.disable", "torch.compiler.allow_in_graph",
                       "torch._dynamo.allow_in_graph", "torch.jit.ignore", "torch.jit.unused"})
_SCALARS = frozenset({"float", "int", "bool"})
#: ``torch.nn`` layers whose call returns no single tensor (or whatever their items return).
_NOT_ONE_TENSOR = frozenset({
    "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "LSTM", "GRU", "RNN", "LSTMCell",
    "MultiheadAttention", "Module",
})


def check(module: Module, options) -> list[Hit]:
    if not spells(module, "torch"):
        return []
    out: list[Hit] = []
    for compiled in compiled_defs(module):
        if compiled.flag("fullgraph") is True:
            continue  # torch raises at the break itself
        walk = _Walk(module, compiled)
        walk.block(compiled.fn.node.body, compiled.fn, in_loop=None, via=None)
        out += walk.hits
    return list(once_per_line(out))


class _Walk:
    """The breaks in one compiled def and the helpers it calls on its straight path."""

    def __init__(self, module: Module, compiled: Compiled):
        self.module, self.compiled = module, compiled
        self.text = module.text
        self.hits: list[Hit] = []
        self.seen = {id(compiled.fn)}
        self.visiting: set[str] = set()  # the names whose bindings tensor() is reading

    # -- statements ---------------------------------------------------------------------------
    def block(self, body, fn: Function, in_loop: str | None, via) -> None:
        """The breaks of a block that runs; ``in_loop``: the loop or ``try`` block it is in,
        where dynamo cannot resume after a break and skips the whole frame (None: neither)."""
        for stmt in body:
            if isinstance(stmt, (ast.If, ast.While)):
                if self.tensor(stmt.test, fn, 0):
                    self.report(stmt.test, "if" if isinstance(stmt, ast.If) else "while", fn, in_loop, via)
                elif isinstance(stmt, ast.While):
                    self.exprs(stmt.test, stmt, fn, in_loop, via)
                    self.block(stmt.body, fn, "a loop", via)
                continue  # which branch runs is not known
            if isinstance(stmt, (ast.For, ast.AsyncFor)):
                self.exprs(stmt.iter, stmt, fn, in_loop, via)
                self.block(stmt.body, fn, "a loop", via)
                continue
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                if all(self._torch_context(item.context_expr) for item in stmt.items):
                    for item in stmt.items:
                        self.exprs(item.context_expr, stmt, fn, in_loop, via)
                    self.block(stmt.body, fn, in_loop, via)
                continue  # a context manager of another kind: whether dynamo resumes in it is not known
            if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                self.block(stmt.body, fn, "a `try` block", via)
                self.block(stmt.finalbody, fn, in_loop, via)
                continue  # the handlers and the else part may not run
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match)):
                continue
            self.exprs(stmt, stmt, fn, in_loop, via)
            if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                return  # what follows does not run

    def _torch_context(self, expr) -> bool:
        """``torch.no_grad()``, ``torch.autocast(...)``: a context manager dynamo resumes in after a break."""
        name = dotted_name(self.module, expr.func) if isinstance(expr, ast.Call) else None
        return name is not None and name.startswith("torch.")

    def exprs(self, node, stmt, fn: Function, in_loop: str | None, via) -> None:
        """The breaks in the expressions ``node`` of the statement ``stmt`` (never into a lambda,
        nor the parts of ``a if c else b`` / ``a and b`` that may not run)."""
        stack = [node]
        while stack:
            e = stack.pop()
            if isinstance(e, ast.Lambda):
                continue
            if isinstance(e, ast.IfExp):
                stack.append(e.test)
                continue
            if isinstance(e, ast.BoolOp):
                stack.append(e.values[0])
                continue
            if isinstance(e, ast.Call):
                kind = self.breaks(e, stmt, fn)
                if kind is not None:
                    self.report(e, kind, fn, in_loop, via)
                    continue
                self.helper(e, fn, in_loop, via)
            stack.extend(reversed(list(ast.iter_child_nodes(e))))

    # -- what breaks --------------------------------------------------------------------------
    def breaks(self, call: ast.Call, stmt, fn: Function) -> str | None:
        func = call.func
        scalars = "capture_scalar_outputs" not in self.text
        if isinstance(func, ast.Name):
            if resolve_name(self.module, func.id, stmt) is not None:
                return None  # the file's own, not the builtin
            if func.id == "print" and "reorderable_logging_functions" not in self.text:
                return "print"
            if func.id in _SCALARS and len(call.args) == 1 and not call.keywords and scalars and self.tensor(call.args[0], fn, 0):
                return "scalar"
            return None
        if not isinstance(func, ast.Attribute):
            return None
        if func.attr in ("item", "tolist") and not call.args and not call.keywords and scalars:
            literal = isinstance(func.value, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set))
            return None if literal else func.attr
        return self.logging(call, fn)

    def logging(self, call: ast.Call, fn: Function) -> str | None:
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in _LOG_METHODS or "ignore_logging_functions" in self.text:
            return None
        name = dotted_name(self.module, func)
        if name is not None and name.startswith("logging.") and name.count(".") == 1:
            return "logging"  # logging.info(...)
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id not in fn.params:
            if self.module.origins(receiver, fn) == {"logging.getLogger"}:
                return "logging"
        return None

    def tensor(self, e, fn: Function, depth: int) -> bool:
        """Whether ``e`` is certainly a tensor (what ``if e:`` reads the value of)."""
        if depth > 6:
            return False
        if isinstance(e, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in e.ops):
                return False
            return any(self.tensor(x, fn, depth + 1) for x in [e.left, *e.comparators])
        if isinstance(e, ast.BoolOp):
            return self.tensor(e.values[0], fn, depth + 1)  # the first operand always runs
        if isinstance(e, ast.UnaryOp):
            return self.tensor(e.operand, fn, depth + 1)
        if isinstance(e, ast.BinOp):
            return self.tensor(e.left, fn, depth + 1) or self.tensor(e.right, fn, depth + 1)
        if isinstance(e, ast.Subscript):
            return self.tensor(e.value, fn, depth + 1)
        if isinstance(e, ast.Name):
            if e.id in self.visiting:
                return True  # ``y = y * 2``: a tensor if its other bindings are
            bound = assignments(self.module, fn).get(e.id) or ()
            if not bound or e.id in fn.params:
                return False
            self.visiting.add(e.id)
            try:
                return all(kind == "=" and value is not None and self.tensor(value, fn, depth + 1) for kind, value in bound)
            finally:
                self.visiting.discard(e.id)
        if not isinstance(e, ast.Call):
            return False
        name = dotted_name(self.module, e.func)
        if name is not None and name.startswith("torch."):
            last = name.rsplit(".", 1)[-1]
            return (
                last[:1].islower() and not last.startswith(("is_", "get_", "set_", "use_", "are_"))
                and name not in _NOT_TENSORS and not name.startswith(_NOT_OPS)
            )
        func = e.func
        if _self_attribute(func):
            labels = self.module.origins(func, fn)  # ``self.lin = torch.nn.Linear(...)``: a layer
            return len(labels) == 1 and _layer(next(iter(labels)))
        if isinstance(func, ast.Attribute) and func.attr in _TENSOR_METHODS:
            receiver = func.value
            if isinstance(receiver, ast.Name) and receiver.id in fn.params and receiver.id != "self":
                return True  # a parameter's tensor method (a number or a list has none of these)
            if _self_attribute(receiver):
                return True  # a buffer or parameter of the module
            return self.tensor(receiver, fn, depth + 1)
        return False

    # -- helpers dynamo inlines ---------------------------------------------------------------
    def helper(self, call: ast.Call, fn: Function, in_loop: str | None, via) -> None:
        """Walk a function of the file the compiled code calls (dynamo traces into it)."""
        if via is not None:
            return  # one level
        func = call.func
        target = None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            target = method(self.module, fn.cls, func.attr) if fn.cls is not None else None
        elif isinstance(func, ast.Name):
            target = self.module.module_functions.get(func.id)
        if target is None or id(target) in self.seen or self._disabled(target):
            return
        self.seen.add(id(target))
        self.block(target.node.body, target, in_loop, call)

    def _disabled(self, fn: Function) -> bool:
        for dec in fn.node.decorator_list:
            name = self.module.bindings.resolve(dec.func if isinstance(dec, ast.Call) else dec)
            if name in _DISABLED or name == "torch.compile":
                return True
        return False

    # -- the finding --------------------------------------------------------------------------
    def report(self, node, kind: str, fn: Function, in_loop: str | None, via) -> None:
        compiled = self.compiled
        what = _WHAT[kind](node)
        where = f"`{fn.qualname}()`" if via is None else f"`{fn.qualname}()`, which the compiled {compiled.display} calls"
        if in_loop:
            head = f"graph break in {in_loop} of {where}: {what}; dynamo skips the whole frame, which runs eagerly (uncompiled)"
        else:
            head = (
                f"graph break in {where}: {what}; the compiled code is split here into two graphs, with a round trip "
                "to Python between them"
            )
        related: list = [(compiled.anchor, f"{compiled.display} is compiled here")]
        if via is not None:
            related.append((via, f"`{fn.qualname}()` is called here"))
        self.hits.append(Hit(node, head, tuple(related), _FIXES[kind], Severity.ERROR if in_loop else None))


def _self_attribute(node) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _layer(name: str) -> bool:
    """A ``torch.nn`` layer that returns one tensor (not a container, not a recurrent layer's tuple)."""
    last = name.rsplit(".", 1)[-1]
    return name.startswith("torch.nn.") and last[:1].isupper() and last not in _NOT_ONE_TENSOR


def _src(node) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


_WHAT = {
    "print": lambda node: "dynamo cannot trace `print(...)`",
    "item": lambda node: f"`{_src(node)}` reads a Python number from a tensor (config.capture_scalar_outputs=False)",
    "scalar": lambda node: f"`{_src(node)}` reads a Python number from a tensor (`.item()`, config.capture_scalar_outputs=False)",
    "tolist": lambda node: f"`{_src(node)}` reads Python values from a tensor",
    "logging": lambda node: f"dynamo does not trace the logging call `{_src(node.func)}(...)`",
    "if": lambda node: f"`if {_src(node)}:` reads a tensor's value (data-dependent control flow)",
    "while": lambda node: f"`while {_src(node)}:` reads a tensor's value (data-dependent control flow)",
}
_FIXES = {
    "print": PRINT_FIX, "item": SCALAR_FIX, "scalar": SCALAR_FIX, "tolist": CONVERT_FIX,
    "logging": LOGGING_FIX, "if": BRANCH_FIX, "while": BRANCH_FIX,
}
