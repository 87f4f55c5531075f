"""Assertions for tests, usable with or without pytest (the pytest fixture wraps them).

    with graphlint.testing.instrumented() as linter:
        graphlint.testing.assert_graph_not_growing(linter, model.forecast, batch)
"""

from __future__ import annotations

import contextlib
from collections import Counter
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, TypeVar, overload

from graphlint._hookspecs import hookimpl
from graphlint.config import Config
from graphlint.linter import Linter
from graphlint.findings import Finding
from graphlint.report import text as render_text
from graphlint.text import plural

if TYPE_CHECKING:
    from graphlint.stacks import Frame

T = TypeVar("T")
P = TypeVar("P")


class GraphlintAssertion(AssertionError):
    """A graphlint assertion failed; the message says what, where, and the fix."""


class GraphGrowth:
    """A plugin that counts the ops added to (non-function) graphs, per user line."""

    def __init__(self) -> None:
        self.sites: Counter[tuple[str, int]] = Counter()
        self.frames: dict[tuple[str, int], Frame | None] = {}

    @hookimpl
    def graphlint_op_added(self, graph_kind: str, site: Frame | None) -> None:
        if graph_kind != "graph":
            return
        key = site[:2] if site is not None else ("<unknown>", 0)
        self.sites[key] += 1
        self.frames.setdefault(key, site)

    @property
    def total(self) -> int:
        return sum(self.sites.values())

    def describe(self, limit: int = 5) -> str:
        from graphlint.findings import Location

        parts = []
        for (path, line), n in self.sites.most_common(limit):
            where = Location(path, line).display_path() if line else path
            parts.append(f"    {where}:{line}: {plural(n, 'op')}")
        more = len(self.sites) - limit
        if more > 0:
            parts.append(f"    ... and {more} more lines")
        return "\n".join(parts)


@contextlib.contextmanager
def recording(linter: Linter, plugin: P) -> Iterator[P]:
    """Register ``plugin`` on the linter's plugin manager for the block."""
    linter.pm.register(plugin)
    try:
        yield plugin
    finally:
        linter.pm.unregister(plugin)


def _check_growth(growth: GraphGrowth, what: str) -> None:
    __tracebackhide__ = True
    if growth.total:
        raise GraphlintAssertion(
            f"the graph grew by {plural(growth.total, 'op')} {what}; built at:\n"
            f"{growth.describe()}\n"
            "fix: build the model once (e.g. in __init__) and only run it per call; "
            "graph.finalize() makes any later op creation raise"
        )


@contextlib.contextmanager
def _growth_block(linter: Linter) -> Iterator[GraphGrowth]:
    with recording(linter, GraphGrowth()) as growth:
        yield growth
    _check_growth(growth, "inside the block")


@overload
def assert_graph_not_growing(linter: Linter, fn: None = None) -> AbstractContextManager[GraphGrowth]: ...
@overload
def assert_graph_not_growing(linter: Linter, fn: Callable[..., T], *args: Any, warmup: int = 1, **kwargs: Any) -> T: ...
def assert_graph_not_growing(
    linter: Linter, fn: Callable[..., T] | None = None, *args: Any, warmup: int = 1, **kwargs: Any
) -> T | AbstractContextManager[GraphGrowth]:
    """Fail when ``fn(*args, **kwargs)`` adds ops to a graph after ``warmup`` calls.

    Without ``fn``, a context manager: fail when the block adds any op to a graph.
    """
    __tracebackhide__ = True
    if fn is None:
        return _growth_block(linter)
    for _ in range(warmup):
        fn(*args, **kwargs)
    with recording(linter, GraphGrowth()) as growth:
        result = fn(*args, **kwargs)
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
    _check_growth(growth, f"when {name}() was called again")
    return result


@contextlib.contextmanager
def assert_max_traces(fn: Any, n: int) -> Iterator[None]:
    """Fail when the ``tf.function`` (or ``jax.jit`` function, or the function or module
    ``torch.compile`` returned) ``fn`` is traced (compiled) more than ``n`` times in the block."""
    __tracebackhide__ = True
    from graphlint.probes.jax_jit import counting_traces, is_jitted
    from graphlint.probes.torch_counting import counting_compiles, is_compiled

    if is_compiled(fn):
        with counting_compiles(fn) as counter:
            yield
        if counter[0] > n:
            name = getattr(fn, "__name__", None) or type(getattr(fn, "_orig_mod", fn)).__name__
            raise GraphlintAssertion(
                f"{name} was compiled {counter[0]} times in the block (at most {n} expected); each compile "
                "is a new dynamo trace and backend compile. fix: pass changing numbers as 0-d tensors, mark "
                "varying dimensions with torch._dynamo.mark_dynamic (or drop dynamic=False), keep int "
                "attributes of a module that change in a tensor buffer"
            )
        return

    if is_jitted(fn):
        with counting_traces(fn) as counter:
            yield
        if counter[0] > n:
            name = getattr(fn, "__name__", repr(fn))
            raise GraphlintAssertion(
                f"{name} was traced {counter[0]} times in the block (at most {n} expected); each trace "
                "is a new trace and XLA compile. fix: pad or bucket array shapes to a few, keep static "
                "arguments' values few, and pass arrays of one dtype (not Python scalars by turns)"
            )
        return
    count = getattr(fn, "experimental_get_tracing_count", None)
    if count is None:
        raise TypeError(
            f"assert_max_traces needs a tf.function, jax.jit or torch.compile function, got {type(fn).__name__}"
        )
    before = count()
    yield
    traced = count() - before
    if traced > n:
        name = getattr(fn, "__name__", repr(fn))
        raise GraphlintAssertion(
            f"{name} was traced {traced} times in the block (at most {n} expected); each trace "
            "builds a new graph. fix: pass tensors instead of Python numbers, give it an "
            "input_signature with None dimensions, or reduce_retracing=True"
        )


@contextlib.contextmanager
def expect_no_findings(linter: Linter, config: Config | None = None, *, select: Iterable[str] | None = None, ignore: Iterable[str] = ()) -> Iterator[list[Finding]]:
    """Fail when the block yields findings (judged on the block alone, with fresh rules)."""
    __tracebackhide__ = True
    found: list[Finding] = []
    scope = linter.open_scope(_narrowed(config or linter.config, select, ignore))
    try:
        yield found
    finally:
        found.extend(scope.finish())
    if found:
        raise GraphlintAssertion(f"expected no graphlint findings, got {len(found)}:\n" + render_text(found))


@contextlib.contextmanager
def expect_findings(linter: Linter, *codes: str, config: Config | None = None) -> Iterator[list[Finding]]:
    """Fail unless the block yields a finding of each of ``codes``."""
    __tracebackhide__ = True
    found: list[Finding] = []
    scope = linter.open_scope(config or linter.config)
    try:
        yield found
    finally:
        found.extend(scope.finish())
    missing = [code for code in codes if not any(f.code.startswith(code) for f in found)]
    if missing:
        got = ", ".join(sorted({f.code for f in found})) or "none"
        raise GraphlintAssertion(f"expected graphlint findings {', '.join(missing)}; got {got}")


def _narrowed(config: Config, select: Iterable[str] | None, ignore: Iterable[str]) -> Config:
    return config.replace(
        select=list(select) if select is not None else config.select,
        ignore=list(config.ignore) + list(ignore),
    )


@contextlib.contextmanager
def instrumented(config: Config | None = None) -> Iterator[Linter]:
    """Probes installed for the block, with a linter whose scopes the helpers open."""
    from graphlint.instrument import instrument

    linter = Linter(config, scoped=True)
    with instrument(linter):
        yield linter
