"""The ``graphlint`` fixture's object: assertions about the graph work done in a test, as
clean pytest failures. The checks are :mod:`graphlint.testing`'s; the fixture function that
hands this object out is in :mod:`graphlint.plugin`.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterable, TypeVar, overload

import pytest

from graphlint import testing
from graphlint.findings import Finding

if TYPE_CHECKING:
    from graphlint.config import Config
    from graphlint.linter import Linter
    from graphlint.plugin import _TestState

T = TypeVar("T")
V = TypeVar("V")


class GraphlintFixture:
    """The ``graphlint`` fixture: assertions about the graph work done in a test."""

    def __init__(self, linter: Linter, state: _TestState | None) -> None:
        self._linter = linter
        self._state = state

    @property
    def findings(self) -> list[Finding]:
        """Findings reported so far in this test, with or without ``--graphlint`` (rules that
        judge a whole test add theirs at its end)."""
        return self._state.scope.sink.findings() if self._state else []

    def expect_no_findings(
        self, *, select: Iterable[str] | None = None, ignore: Iterable[str] = ()
    ) -> _Failing[list[Finding]]:
        """``with graphlint.expect_no_findings(): ...`` fails when the block yields a finding."""
        return _Failing(testing.expect_no_findings(self._linter, self._config(), select=select, ignore=ignore))

    def expect_findings(self, *codes: str) -> _Expecting:
        """``with graphlint.expect_findings("GL101"): ...`` fails unless the block yields them.
        What the block yields was expected: under ``--graphlint`` it does not also fail the test."""
        return _Expecting(testing.expect_findings(self._linter, *codes, config=self._config()), self._state)

    @overload
    def assert_graph_not_growing(self, fn: None = None) -> _Failing[testing.GraphGrowth]: ...
    @overload
    def assert_graph_not_growing(self, fn: Callable[..., T], *args: Any, warmup: int = 1, **kwargs: Any) -> T: ...
    def assert_graph_not_growing(
        self, fn: Callable[..., T] | None = None, *args: Any, warmup: int = 1, **kwargs: Any
    ) -> T | _Failing[testing.GraphGrowth]:
        """``graphlint.assert_graph_not_growing(model.forecast, x)``: after ``warmup`` calls,
        one more call must add no op to any graph. Without ``fn``: a block that adds no op."""
        __tracebackhide__ = True
        if fn is None:
            return _Failing(testing.assert_graph_not_growing(self._linter))
        try:
            return testing.assert_graph_not_growing(self._linter, fn, *args, warmup=warmup, **kwargs)
        except testing.GraphlintAssertion as exc:
            message = str(exc)
        pytest.fail(message, pytrace=False)

    def assert_max_traces(self, fn: Any, n: int) -> _Failing[None]:
        """``with graphlint.assert_max_traces(step, 1): ...``: ``step`` traced at most ``n`` times."""
        return _Failing(testing.assert_max_traces(fn, n))

    def _config(self) -> Config:
        return self._state.scope.config if self._state else self._linter.config


class _Failing(Generic[V]):
    """Wraps a checking context manager so that its failure is a clean pytest failure."""

    def __init__(self, cm: AbstractContextManager[V]) -> None:
        self.cm = cm
        self.found: V | None = None

    def __enter__(self) -> V:
        found = self.found = self.cm.__enter__()
        return found

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        __tracebackhide__ = True
        try:
            return self.cm.__exit__(kind, exc, tb)
        except testing.GraphlintAssertion as exc:
            message = str(exc)
        pytest.fail(message, pytrace=False)


class _Expecting(_Failing[list[Finding]]):
    """``expect_findings``: the block's findings are marked expected in the test's state."""

    def __init__(self, cm: AbstractContextManager[list[Finding]], state: _TestState | None) -> None:
        super().__init__(cm)
        self.state = state

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        __tracebackhide__ = True
        try:
            return super().__exit__(kind, exc, tb)
        finally:
            if self.state is not None and self.found:
                self.state.expected.update(f.key for f in self.found)
