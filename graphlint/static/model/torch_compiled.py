"""The user's code that ``torch.compile`` compiles, when the source makes it certain: a def
decorated with ``@torch.compile``, a def or an ``nn.Module`` instance passed to an unconditional
``torch.compile(...)``, a module compiled in place (``model.compile()``), a module class whose
``forward`` is decorated (:func:`compiled_defs`); and what a call calls (:func:`compiled_callee`:
``fast = torch.compile(encode, dynamic=False)`` then ``fast(x)``). What GL501's and GL506's
PyTorch forms read. A compile under an ``if`` (a command-line flag) or a ``try``, of a parameter,
or of a name bound more than one way is not certain: it is left out. Nothing is imported.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from graphlint.static.model.module import Module
from graphlint.static.model.project import lineage
from graphlint.static.model.scopes import CallSite, ClassInfo, Function
from graphlint.static.model.tf_functions import _method
from graphlint.static.model.values import assignments

COMPILE = "torch.compile"
NN_MODULES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
#: ``nn.Module`` methods that return the module itself (``Net().to(device).eval()``).
_RETURNS_SELF = frozenset({"to", "cuda", "cpu", "eval", "train", "float", "half", "double", "bfloat16", "requires_grad_"})
#: What tells dynamo before the first compile that a dimension varies.
MARK_DYNAMIC = frozenset({"torch._dynamo.mark_dynamic", "torch._dynamo.maybe_mark_dynamic", "torch._dynamo.mark_unbacked"})


@dataclass(eq=False)
class Compiled:
    """A def dynamo traces: the function, or the ``forward`` of a compiled ``nn.Module``."""

    fn: Function
    anchor: ast.AST  # the decorator, the ``torch.compile(...)`` call or the ``.compile(...)`` call
    keywords: dict = field(default_factory=dict)  # torch.compile's keywords: name -> expression
    cls: ClassInfo | None = None  # the nn.Module class, when a module is compiled

    def flag(self, name: str) -> Any:
        """A keyword's literal value (``dynamic=False``), or None when not given or not a literal."""
        value = self.keywords.get(name)
        return value.value if isinstance(value, ast.Constant) else None

    @property
    def static_shapes(self) -> bool:
        """``dynamic=False``: every new shape or Python number is a new compile."""
        return self.flag("dynamic") is False

    @property
    def display(self) -> str:
        return f"`{self.fn.qualname}()`"

    @property
    def params(self) -> tuple:
        """The positional parameters a caller passes (``self`` left out of a method)."""
        args = self.fn.node.args
        names = [a.arg for a in args.posonlyargs + args.args]
        return tuple(names[1:] if self.fn.is_method and names else names)


def is_nn_module(module: Module, cls: ClassInfo | None) -> bool:
    """A class of the file that derives from ``torch.nn.Module`` (through the file's own classes)."""
    return cls is not None and any(base in NN_MODULES for own in lineage(module, cls) for base in own.bases)


def method(module: Module, cls: ClassInfo | None, name: str) -> Function | None:
    """``cls.name``, through the file's own base classes."""
    return _method(module, cls, name)


def compile_keywords(module: Module, node: ast.expr) -> dict | None:
    """The keywords of ``torch.compile(...)`` / ``@torch.compile`` (``{}`` bare), or None when
    ``node`` is no torch.compile, or one that may be disabled (``disable=flag``)."""
    call = node if isinstance(node, ast.Call) else None
    if module.bindings.resolve(call.func if call is not None else node) != COMPILE:
        return None
    keywords = {k.arg: k.value for k in call.keywords if k.arg} if call is not None else {}
    if call is not None and any(k.arg is None for k in call.keywords):
        return None  # **options: what they set is not known
    disable = keywords.get("disable")
    if disable is not None and not (isinstance(disable, ast.Constant) and disable.value is False):
        return None
    return keywords


def unconditional(site: CallSite) -> bool:
    """Whether a call runs whenever its scope does: under no ``if`` (``if __name__ ==
    "__main__":`` aside) and in no ``try``."""
    return not site.trys and all(_main_guard(node.test) and branch == "body" for node, branch in site.ifs)


def _main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
        and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _sites(module: Module) -> dict:
    """Every call site by the id of its node (once per module)."""
    found = module.cache.get("torch.sites")
    if found is None:
        found = module.cache["torch.sites"] = {id(site.node): site for site in module.calls}
    return found


def reached(module: Module, scope: Function | None, name: str, line: int, end: int) -> CallSite | None:
    """The call a plain name is bound to where it is read at ``line`` (until ``end``): its one
    binding in effect there, made unconditionally by ``name = call(...)`` in ``scope`` (or,
    bound nowhere in the function, once at module level) and not rebound before ``end``."""
    found = assignments(module, scope).get(name) if scope is not None else None
    local = bool(found)
    if not found:
        if scope is not None and name in scope.params:
            return None
        found = assignments(module, None).get(name)
    if not found or any(kind != "=" or value is None for kind, value in found):
        return None
    if not local and scope is not None:
        if len(found) != 1:
            return None  # read in a function: which module-level binding it sees is not known
        before = found
    else:
        before = [value for _, value in found if value.lineno < line]
        if not before or any(line < value.lineno <= end for _, value in found):
            return None
        before = [("=", max(before, key=lambda v: v.lineno))]
    value = before[0][1]
    site = _sites(module).get(id(value)) if isinstance(value, ast.Call) else None
    return site if site is not None and unconditional(site) else None


def instance_class(module: Module, expr: ast.expr | None, scope: Function | None, line: int, depth: int = 0) -> ClassInfo | None:
    """The file's ``nn.Module`` class ``expr`` is an instance of: ``Net(...)``, ``Net(...).to(device)``,
    or a name bound to one (:func:`reached`)."""
    if depth > 4:
        return None
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _RETURNS_SELF:
        expr = expr.func.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        cls = module.classes.get(expr.func.id)
        return cls if is_nn_module(module, cls) else None
    if isinstance(expr, ast.Name):
        site = reached(module, scope, expr.id, line, line)
        return instance_class(module, site.node, site.scope, site.line, depth + 1) if site is not None else None
    return None


def _def_named(module: Module, expr: ast.expr | None, scope: Function | None) -> Function | None:
    """The user's def a plain name names (a nested def of an enclosing function, or one at module level)."""
    if not isinstance(expr, ast.Name):
        return None
    s = scope
    while s is not None:
        if expr.id in s.children:
            return s.children[expr.id]
        s = s.parent
    return module.module_functions.get(expr.id)


def decorated(module: Module, fn: Function, cls: ClassInfo | None = None) -> Compiled | None:
    """The compile a ``@torch.compile`` decorator makes of ``fn``, or None."""
    for dec in fn.node.decorator_list:
        keywords = compile_keywords(module, dec)
        if keywords is not None:
            return Compiled(fn, dec, keywords, cls)
    return None


def compile_of(module: Module, site: CallSite) -> Compiled | None:
    """What ``torch.compile(target, ...)`` at ``site`` compiles: a def, or an nn.Module instance."""
    node = site.node
    if not isinstance(node, ast.Call) or site.decorator:
        return None
    keywords = compile_keywords(module, node)
    target = node.args[0] if node.args else keywords.get("model") if keywords is not None else None
    if keywords is None or target is None:
        return None
    keywords = {k: v for k, v in keywords.items() if k != "model"}
    fn = _def_named(module, target, site.scope)
    if fn is not None:
        return Compiled(fn, node, keywords)
    cls = instance_class(module, target, site.scope, site.line)
    forward = method(module, cls, "forward")
    return Compiled(forward, node, keywords, cls) if forward is not None else None


def _module_compiled(module: Module, cls: ClassInfo, anchor_site: CallSite | None, keywords: dict) -> Compiled | None:
    forward = method(module, cls, "forward")
    if forward is None:
        return None
    own = decorated(module, forward, cls)
    if own is not None:
        return own
    return Compiled(forward, anchor_site.node, keywords, cls) if anchor_site is not None else None


def compiled_callee(module: Module, site: CallSite) -> Compiled | None:
    """The compiled def a call runs, when the source makes it certain: a decorated def called by
    name, or a name bound to ``torch.compile(...)``, to a module compiled in place before the
    call, or to an instance of a module class whose ``forward`` is decorated."""
    if site.target is not None:
        return decorated(module, site.target)
    node = site.node
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None
    end = getattr(site.loops[0].node, "end_lineno", site.line) if site.loops else site.line
    start = site.loops[0].node.lineno if site.loops else site.line
    bound = reached(module, site.scope, node.func.id, start, end)
    if bound is None:
        return None
    if bound.name == COMPILE:
        return compile_of(module, bound)
    cls = instance_class(module, bound.node, bound.scope, bound.line)
    if cls is None:
        return None
    inplace = _compiled_in_place(module, site.scope, node.func.id, bound.line, start)
    return _module_compiled(module, cls, inplace, _inplace_keywords(inplace) if inplace is not None else {})


def _compiled_in_place(module: Module, scope: Function | None, name: str, after: int, before: int) -> CallSite | None:
    """``name.compile(...)`` in ``scope`` between two lines, unconditionally."""
    for call in module.calls:
        receiver = call.receiver
        if (
            call.method == "compile" and call.scope is scope and isinstance(receiver, ast.Name)
            and receiver.id == name and after < call.line < before and unconditional(call) and not call.loops
        ):
            return call
    return None


def _inplace_keywords(site: CallSite) -> dict:
    node = site.node
    return {k.arg: k.value for k in node.keywords if k.arg} if isinstance(node, ast.Call) else {}


def compiled_defs(module: Module) -> list[Compiled]:
    """Every def of the file that torch.compile certainly compiles: decorated ones, those an
    unconditional ``torch.compile(...)`` or ``module.compile()`` is applied to (once per module)."""
    found = module.cache.get("torch.compiled-defs")
    if found is not None:
        return found
    out: dict[int, Compiled] = {}
    for fn in module.functions:
        if fn.node.decorator_list:
            made = decorated(module, fn, fn.cls if fn.cls is not None and is_nn_module(module, fn.cls) else None)
            if made is not None:
                out.setdefault(id(fn), made)
    for site in module.calls:
        if site.decorator or not unconditional(site):
            continue
        made = None
        if site.name == COMPILE:
            made = compile_of(module, site)
        elif site.method == "compile" and isinstance(site.receiver, ast.Name) and isinstance(site.node, ast.Call):
            cls = instance_class(module, site.receiver, site.scope, site.line)
            made = _module_compiled(module, cls, site, _inplace_keywords(site)) if cls is not None else None
        if made is not None:
            out.setdefault(id(made.fn), made)
    found = module.cache["torch.compiled-defs"] = list(out.values())
    return found
