"""The runtime linter: a pluggy plugin manager with the rules registered (:class:`Linter`),
per-test rule sets (:class:`RuleScope`), and the sink their findings go to (:class:`Sink`)."""

from __future__ import annotations

import linecache
import sys
import threading
import traceback
from dataclasses import replace
from typing import Iterable

import pluggy

from graphlint import _hookspecs
from graphlint.config import Config
from graphlint.findings import Finding, Location, internal_error, sorted_findings
from graphlint.registry import discover_rules
from graphlint.rules._base import Rule
from graphlint.suppression import line_suppresses, selected


class _PluginManager(pluggy.PluginManager):
    """Rules' ``graphlint_*`` methods are hook implementations without a decorator.

    ``graphlint_stamp`` changes whenever hook implementations may have changed, so that the
    probes' compiled hook calls (``graphlint/probes/_dispatch.py``) know when to rebuild.
    """

    graphlint_stamp = 0

    def register(self, plugin, name=None):
        try:
            return super().register(plugin, name)
        finally:
            self.graphlint_stamp += 1

    def unregister(self, plugin=None, name=None):
        try:
            return super().unregister(plugin, name)
        finally:
            self.graphlint_stamp += 1

    def add_hookspecs(self, module_or_class):
        try:
            return super().add_hookspecs(module_or_class)
        finally:
            self.graphlint_stamp += 1

    def parse_hookimpl_opts(self, plugin, name):
        if not name.startswith("graphlint_"):
            # Hook implementations carry the hook's name; skipping the rest up front keeps
            # registering a rule cheap (the pytest plugin registers fresh rules per test).
            return None
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is None and isinstance(plugin, Rule) and callable(getattr(plugin, name, None)):
            return {}
        return opts


class Sink:
    """Collects findings: applies ``# noqa`` and per-file ignores, merges repeats."""

    def __init__(self, config: Config):
        self.config = config
        self._findings: dict[tuple, Finding] = {}
        self._lock = threading.Lock()
        self.test_id: str | None = None

    def add(self, finding: Finding) -> None:
        loc = finding.location
        if not selected(self.config, finding) or line_suppresses(linecache.getline(loc.path, loc.line), finding.code):
            return
        if self.test_id is not None and finding.test_id is None:
            finding = replace(finding, test_id=self.test_id)
        key = finding.key + (finding.test_id,)
        with self._lock:
            seen = self._findings.get(key)
            if seen is None:
                self._findings[key] = finding
            else:
                self._findings[key] = seen.with_count(seen.count + finding.count)

    def internal_error(self, rule: Rule, exc: BaseException, hook: str) -> None:
        tb = traceback.extract_tb(exc.__traceback__)
        frame = tb[-1] if tb else None
        where = Location(frame.filename, frame.lineno or 1) if frame else Location("<graphlint>", 1)
        self.add(internal_error(rule.code, hook, exc, where))

    def findings(self) -> list[Finding]:
        with self._lock:
            return list(self._findings.values())

    def take(self) -> list[Finding]:
        """The findings so far, emptying the sink (the pytest plugin takes them per test)."""
        with self._lock:
            found = list(self._findings.values())
            self._findings.clear()
            return found


class RuleScope:
    """One set of rule instances with their own sink, registered on a linter's plugin manager.

    The pytest plugin opens a scope per test (and per ``expect_no_findings()`` block), so each
    judges only what happened while it was open; the probes stay bound to the one manager.
    """

    def __init__(self, linter: "Linter", config: Config):
        self.linter = linter
        self.config = config
        self.sink = Sink(config)
        self.rules: list[Rule] = []
        self._finished: list[Finding] | None = None
        for code, cls in linter.rule_classes.items():
            if "runtime" not in cls.engines or not config.is_selected(code):
                continue
            rule = cls(self.sink, config.options_for(cls))
            linter.pm.register(rule, name=f"{code}@{id(self):x}")
            self.rules.append(rule)
        linter.pm.check_pending()  # a misspelled hook method fails loudly

    def finish(self, exit_status: int = 0) -> list[Finding]:
        """Let this scope's rules judge the run, unregister them, return their findings."""
        if self._finished is None:
            pm = self.linter.pm
            mine = {id(rule) for rule in self.rules}
            others = [p for p in pm.get_plugins() if id(p) not in mine]
            pm.subset_hook_caller("graphlint_run_finished", remove_plugins=others)(
                exit_status=exit_status
            )
            for rule in self.rules:
                pm.unregister(rule)
            self._finished = sorted_findings(self.sink.findings())
        return self._finished


class Linter:
    """The rules, registered on a pluggy plugin manager, and the sink their findings go to.

    ``Linter(config)`` registers every selected rule once (what ``graphlint run`` uses);
    ``Linter(config, scoped=True)`` registers none and leaves it to :meth:`open_scope`.
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        rules: Iterable[type[Rule]] | None = None,
        plugins: bool = True,
        scoped: bool = False,
        warn=None,
    ):
        self.config = config or Config()
        warn = warn or (lambda msg: print(msg, file=sys.stderr))
        self.rule_classes = (
            {cls.code: cls for cls in rules}
            if rules is not None
            else discover_rules(plugins=plugins, warn=warn)
        )
        self.validate(self.config)
        self.pm = _PluginManager("graphlint")
        self.pm.add_hookspecs(_hookspecs)
        self.hook = self.pm.hook
        self.main = None if scoped else RuleScope(self, self.config)

    def validate(self, config: Config) -> None:
        """Raise ConfigError for codes, rules or options that do not exist."""
        config.validate(self.rule_classes)

    def open_scope(self, config: Config | None = None) -> RuleScope:
        config = config or self.config
        self.validate(config)
        return RuleScope(self, config)

    @property
    def sink(self) -> Sink:
        return self.main.sink

    def finish(self, exit_status: int = 0) -> list[Finding]:
        """Tell the rules the run is over and return every finding, in report order."""
        return self.main.finish(exit_status)
