"""The pytest plugin: findings per test, failing tests on demand, pytest-xdist aware.

Inert unless ``--graphlint`` (or ini ``graphlint = true``) is given; the ``graphlint`` fixture
works either way. The checks themselves are plain functions in :mod:`graphlint.testing`; a
test's ``@pytest.mark.graphlint`` settings are read by :mod:`graphlint.markers`; the fixture's
object is :class:`graphlint.fixture.GraphlintFixture`. This module holds the pytest hooks.

Semantics: the probes are installed once per session (per xdist worker). Each test gets fresh
rule instances, opened when its setup starts and judged when its call ends (teardown has its
own), so a test's findings come only from what happened during that test. graphlint resets
nothing in TensorFlow: a test that builds into the default graph after another test did is
judged on its own ops alone, so it is not a GL101 by itself.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING, Generator

import pytest

from graphlint import testing
from graphlint.config import ConfigError
from graphlint.findings import Finding, Severity, finding_from_dict, finding_to_dict
from graphlint.fixture import GraphlintFixture
from graphlint.markers import LEVELS, MARKER_HELP, MarkerError, marker_config, marker_problem, rule_classes
from graphlint.text import plural

if TYPE_CHECKING:  # imported when a session starts, not by every pytest run
    from graphlint.config import Config
    from graphlint.linter import Linter, RuleScope


class GraphlintWarning(pytest.PytestWarning):
    """A graphlint finding below the ``--graphlint-fail-on`` level."""


class GraphlintFailure(Exception):
    """A test failed because its graphlint findings reached the fail-on level (or a warning
    filter made their GraphlintWarning an error: ``where`` is then the test's own line)."""

    def __init__(self, findings: list[Finding], when: str, where: str = ""):
        text = _failure_text(findings, when)
        if where:
            text = f"{where}: GraphlintWarning (an error by the warning filter)\n{text}"
        super().__init__(text)
        self.findings = findings


def _failure_text(findings: list[Finding], when: str) -> str:
    from graphlint.report import text

    phase = "" if when == "call" else f" during {when}"
    body = text([replace(f, test_id=None) for f in findings]).splitlines()[:-1]  # no summary line
    return f"graphlint found {plural(len(findings), 'problem')}{phase}:\n" + "\n".join(body)


# -- options ------------------------------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("graphlint", "graphlint: TensorFlow graph-construction anti-patterns")
    group.addoption("--graphlint", action="store_true", default=None, help="Watch every test with graphlint's probes.")
    group.addoption(
        "--graphlint-fail-on",
        choices=sorted(LEVELS),
        default=None,
        help="Fail a test whose findings reach this severity (default: error).",
    )
    group.addoption("--graphlint-report", metavar="FILE", default=None, help="Write all findings to FILE (.json or .sarif).")
    parser.addini("graphlint", type="bool", default=False, help="Enable graphlint (like --graphlint).")
    parser.addini("graphlint_fail_on", default="error", help="error|warning|never (like --graphlint-fail-on).")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    if config.getoption("graphlint") or config.getini("graphlint"):
        config.pluginmanager.register(GraphlintPlugin(config), "graphlint-session")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A ``@pytest.mark.graphlint(...)`` graphlint cannot use is a collection error of its
    module, with or without ``--graphlint`` (as ``--strict-markers`` treats an unknown mark)."""
    report = yield
    if report.outcome != "passed" or not report.result:
        return report
    problems: list[str] = []
    for item in report.result:
        if isinstance(item, pytest.Item) and item.get_closest_marker("graphlint") is not None:
            problem = marker_problem(item, _marker_base(item.config))
            if problem:
                problems.append(problem)
    if problems:
        report.outcome = "failed"
        report.longrepr = "\n".join(problems)
        report.result = []
    return report


def _marker_base(config: pytest.Config) -> Config:
    plugin = config.pluginmanager.get_plugin("graphlint-session")
    if plugin is not None:
        return plugin.base
    base = config.stash.get(_BASE, None)
    if base is None:
        base = config.stash[_BASE] = _base_config(config)
    return base


def _fail_on(config: pytest.Config) -> str:
    value = config.getoption("graphlint_fail_on") or config.getini("graphlint_fail_on") or "error"
    if value not in LEVELS:
        raise pytest.UsageError(f"graphlint_fail_on must be one of error, warning, never; got {value!r}")
    return value


def _base_config(config: pytest.Config) -> Config:
    from graphlint.config import ConfigError, load

    try:
        return load(start=str(config.rootpath))
    except ConfigError as exc:
        raise pytest.UsageError(f"graphlint: {exc}") from None


def _check_report_path(path: str) -> None:
    """``--graphlint-report`` must be writable: a missing folder, a directory or a full device
    is a usage error at start-up."""
    import os
    import stat

    try:
        mode = os.stat(path).st_mode if os.path.exists(path) else None
        if mode is not None and stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory")
        if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISCHR(mode)):
            raise OSError(0, "not a regular file")
        with open(path, "a", encoding="utf-8") as fh:
            if mode is not None and stat.S_ISCHR(mode):  # /dev/full: only a write tells
                fh.write("\n")
                fh.flush()
    except OSError as exc:
        raise pytest.UsageError(f"graphlint: cannot write --graphlint-report {path}: {exc.strerror or exc}") from None


def _is_xdist_controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", None)) and config.pluginmanager.hasplugin("dsession")


# -- the session plugin -------------------------------------------------------------------------
class GraphlintPlugin:
    """Installed when graphlint is enabled: probes for the session, a scope per test."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.fail_on = _fail_on(config)
        self.base = _base_config(config)
        self.report_path = config.getoption("graphlint_report")
        if self.report_path and not hasattr(config, "workerinput"):
            _check_report_path(self.report_path)  # said now, not lost after the whole run
        self.controller = _is_xdist_controller(config)
        self.linter: Linter | None = None
        self._instrument: AbstractContextManager[Linter] | None = None
        self.findings: list[Finding] = []

    # session
    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.controller:
            return  # xdist workers run the tests; the controller only gathers their findings
        from graphlint.linter import Linter
        from graphlint.instrument import instrument

        try:
            self.linter = Linter(self.base, scoped=True)
        except ConfigError as exc:
            raise pytest.UsageError(f"graphlint: {exc}") from None
        self._instrument = instrument(self.linter)
        try:
            self._instrument.__enter__()
        except ConfigError as exc:
            self._instrument = None
            raise pytest.UsageError(f"graphlint: {exc}") from None

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self._instrument is not None:
            self._instrument.__exit__(None, None, None)
            self._instrument = None
        if self.report_path and not hasattr(self.config, "workerinput") and not self._write_report():
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR  # the report is lost: never green

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._instrument is not None:
            self._instrument.__exit__(None, None, None)
            self._instrument = None

    # per test
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, object, object]:
        problem = None
        if self.linter is not None:
            try:
                cfg, fail_on = marker_config(item, self.base)
                scope = self.linter.open_scope(cfg)
            except (MarkerError, ConfigError) as exc:
                problem = str(exc)
            except (TypeError, ValueError, AttributeError) as exc:  # any other unusable argument
                problem = f"{item.nodeid}: bad @pytest.mark.graphlint arguments: {exc}"
            else:
                item.stash[_STATE] = _TestState(scope, fail_on or self.fail_on)
        result = yield
        if problem:  # after pytest's own setup, so that its teardown finds what it expects
            pytest.fail(problem, pytrace=False)
        return result

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, object, object]:
        return (yield from _judged(item.stash.get(_STATE, None), item, "call"))

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
        state = item.stash.get(_STATE, None)
        if state is not None:
            state.judge(item, "setup")  # the call never ran: setup failed or was skipped
            state.scope = state.scope.linter.open_scope(state.scope.config)
            state.judged = False
        return (yield from _judged(state, item, "teardown"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        state = item.stash.get(_STATE, None)
        if state is not None:
            found = state.by_phase.pop(call.when, [])
            if call.when == "teardown":
                found += state.by_phase.pop("setup", [])
            if found:
                # an attribute of the report's own: xdist carries it to the controller
                report.graphlint = [finding_to_dict(f) for f in found]  # type: ignore[attr-defined]
            if call.excinfo is not None and isinstance(call.excinfo.value, GraphlintFailure):
                report.longrepr = str(call.excinfo.value)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for data in getattr(report, "graphlint", None) or ():
            self.findings.append(finding_from_dict(data))

    # summary and report file
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if hasattr(self.config, "workerinput"):
            return
        write = terminalreporter
        if not self.findings:
            if self.linter is not None or self.controller:
                write.write_sep("=", "graphlint: no findings")
            return
        write.write_sep("=", "graphlint")
        groups: defaultdict[tuple[str, str], list[Finding]] = defaultdict(list)
        for f in self.findings:
            groups[(f.code, f.name)].append(f)
        for (code, name), found in sorted(groups.items()):
            write.write_line(f"{code} {name}: {plural(len(found), 'finding')}")
            for f in sorted(found, key=lambda f: (f.test_id or "", f.location.line)):
                loc = f.location
                count = f" (×{f.count})" if f.count > 1 else ""
                write.write_line(f"  {f.test_id}: {loc.display_path()}:{loc.line}: {f.message}{count}")
        tests = len({f.test_id for f in self.findings})
        errors = sum(1 for f in self.findings if f.severity is Severity.ERROR)
        write.write_line(
            f"graphlint: {plural(len(self.findings), 'finding')} ({plural(errors, 'error')}, "
            f"{plural(len(self.findings) - errors, 'warning')}) in {plural(tests, 'test')}"
        )

    def _write_report(self) -> bool:
        from graphlint.findings import sorted_findings
        from graphlint.registry import describe
        from graphlint.report import render

        path = self.report_path
        fmt = "sarif" if path.endswith((".sarif", ".sarif.json")) else "json"
        findings = sorted(sorted_findings(self.findings), key=lambda f: f.test_id or "")
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(render(fmt, findings, describe({cls.code: cls for cls in rule_classes()})))
        except OSError as exc:
            writer = self.config.get_terminal_writer()
            writer.line()  # not glued to the progress line
            writer.line(f"graphlint: cannot write --graphlint-report {path}: {exc.strerror}", red=True)
            return False
        return True


def _judged(state: _TestState | None, item: pytest.Item, when: str) -> Generator[None, object, object]:
    """The body of a phase wrapper: run the phase, then judge what it did; its findings fail
    the phase (at the fail-on level) or become warnings. A phase that raised keeps its error."""
    try:
        result = yield
    except BaseException:
        if state is not None:
            state.judge(item, when)
        raise
    if state is not None:
        state.complain(state.judge(item, when), when, item)
    return result


class _TestState:
    def __init__(self, scope: RuleScope, fail_on: str):
        self.scope = scope
        self.fail_on = fail_on
        self.judged = False
        self.by_phase: dict[str, list[Finding]] = {}
        self.expected: set[tuple[str, str, int]] = set()  # keys of findings an expect_findings block asked for

    def judge(self, item: pytest.Item, when: str) -> list[Finding]:
        if self.judged:
            return []
        self.judged = True
        # what an `expect_findings` block of the test expected is no failure of the test
        findings = [replace(f, test_id=item.nodeid) for f in self.scope.finish() if f.key not in self.expected]
        if findings:
            self.by_phase.setdefault(when, []).extend(findings)
        return findings

    def complain(self, findings: list[Finding], when: str, item: pytest.Item | None = None) -> None:
        """Fail the phase for findings at the fail-on level; the rest are listed at the end of
        the run, and fail the test where a warning filter makes GraphlintWarning an error
        (its failure names the test's line, not graphlint's frames)."""
        __tracebackhide__ = True
        level = LEVELS[self.fail_on]
        failing = [f for f in findings if f.severity.rank >= level]
        as_errors = []
        for f in findings:
            if f not in failing:
                loc = f.location
                fix = f" fix: {f.fix}" if f.fix else ""
                # Listed once, in the graphlint section; an error only where a filter
                # (-W error::graphlint.plugin.GraphlintWarning) makes the warning one.
                if _warning_action(f"{f.code} {f.message}.{fix}", loc.path, loc.line) == "error":
                    as_errors.append(f)
        if failing:
            raise GraphlintFailure(failing, when)
        if as_errors:
            where = ""
            if item is not None:
                path, line, _ = item.location
                where = f"{path}:{(line or 0) + 1}"
            raise GraphlintFailure(as_errors, when, where or "the test")


_STATE = pytest.StashKey[_TestState]()
_BASE = pytest.StashKey["Config"]()


def _warning_action(text: str, path: str, line: int) -> str:
    """The action the active warning filters take on a GraphlintWarning ``text`` at ``path``."""
    module = path[:-3] if path.endswith(".py") else path
    for action, message, category, module_re, lineno in warnings.filters:
        if (
            issubclass(GraphlintWarning, category)
            and (message is None or message.match(text))
            and (module_re is None or module_re.match(module))
            and (lineno == 0 or lineno == line)
        ):
            return action
    return warnings.defaultaction  # type: ignore[attr-defined]  # the module's own, not in typeshed


@pytest.fixture
def graphlint(request: pytest.FixtureRequest) -> Generator[GraphlintFixture, None, None]:
    """Assertions about graph construction in this test; see :class:`GraphlintFixture`."""
    plugin = request.config.pluginmanager.get_plugin("graphlint-session")
    if plugin is not None and plugin.linter is not None:
        yield GraphlintFixture(plugin.linter, request.node.stash.get(_STATE, None))
        return
    instrumented = testing.instrumented(_marker_base(request.config))
    try:
        linter = instrumented.__enter__()
    except ConfigError as exc:  # no TensorFlow: one line, not graphlint's traceback
        pytest.fail(f"graphlint: {exc}", pytrace=False)
    try:
        # a scope of its own for the test: `graphlint.findings` without --graphlint too
        cfg, _ = marker_config(request.node, linter.config)
        state = _TestState(linter.open_scope(cfg), "never")
        try:
            yield GraphlintFixture(linter, state)
        finally:
            state.scope.finish()
    finally:
        instrumented.__exit__(None, None, None)
