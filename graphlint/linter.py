"""The runtime linter: a pluggy plugin manager with the rules registered (:class:`Linter`),
per-test rule sets (:class:`RuleScope`), and the sink their findings go to (:class:`Sink`)."""

from __future__ import annotations

import linecache
import sys
import threading
import traceback
import types
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

    Registering a rule is fast after the first instance of its class: the pytest plugin
    registers a fresh set of rules per test (and per ``expect_*`` block), and pluggy's own
    ``register`` (``dir()`` of the instance, ``inspect.getattr_static`` and the spec check for
    every hook) cost ~0.1 ms per rule, 2 ms per set. The first instance of a rule class goes
    through pluggy; what it registered (which hooks, which functions, which options) is kept
    per class, and a later instance of the class gets the same hook implementations, bound to
    it, added straight to the same hook callers. That is valid while the class's (and its
    bases') ``graphlint_*`` attributes and the hook specifications are unchanged, which is
    checked on every registration; anything else goes through pluggy. It leans on pluggy
    internals (``_name2plugin``, ``HookCaller._hookimpls`` / ``_add_hookimpl``), like
    ``probes/_dispatch.py``; pluggy's version is pinned to the range they were read from.
    """

    graphlint_stamp = 0

    def __init__(self, project_name: str):
        super().__init__(project_name)
        self._spec_generation = 0
        # rule class -> (its graphlint_* attributes, spec generation, ((caller, function,
        # opts), ...)), or None: this class always goes through pluggy
        self._templates: dict[type, tuple | None] = {}
        self._fast: dict[int, tuple] = {}  # id(rule) -> (rule, its hook callers), added by _fast_register
        self._internals = (
            isinstance(getattr(self, "_name2plugin", None), dict)
            and hasattr(pluggy, "HookImpl")
            and hasattr(pluggy.HookCaller, "_add_hookimpl")
        )

    def register(self, plugin, name=None):
        try:
            if self._internals and isinstance(plugin, Rule):
                name = name or self.get_canonical_name(plugin)
                template = self._template(type(plugin))
                if template is not None and self._fast_register(plugin, name, template):
                    return name
                registered = super().register(plugin, name)
                if registered is not None and template is None:
                    self._learn(plugin)
                return registered
            return super().register(plugin, name)
        finally:
            self.graphlint_stamp += 1

    def unregister(self, plugin=None, name=None):
        try:
            removed = super().unregister(plugin, name)
            if removed is not None:
                self._fast.pop(id(removed), None)
            return removed
        finally:
            self.graphlint_stamp += 1

    def get_hookcallers(self, plugin):
        fast = self._fast.get(id(plugin))
        if fast is not None and fast[0] is plugin and self.get_name(plugin) is not None:
            # pluggy scans every hook caller's implementations for the plugin's
            return list(fast[1])
        return super().get_hookcallers(plugin)

    def add_hookspecs(self, module_or_class):
        try:
            return super().add_hookspecs(module_or_class)
        finally:
            self._spec_generation += 1
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

    # -- registering another instance of a rule class already registered once ---------------
    @staticmethod
    def _hook_attributes(cls: type) -> tuple:
        """The ``graphlint_*`` attributes of ``cls`` and its bases, by identity: what a
        registration reads (``parse_hookimpl_opts`` looks at nothing else)."""
        return tuple(
            (klass, attr, value)
            for klass in cls.__mro__
            if klass is not object  # (whose attributes cannot be set)
            for attr, value in vars(klass).items()
            if attr.startswith("graphlint_")
        )

    def _template(self, cls: type):
        template = self._templates.get(cls)
        if template is None:
            return None
        attributes, generation, impls = template
        if generation != self._spec_generation or self._hook_attributes(cls) != attributes:
            del self._templates[cls]  # learnt again from the next registration through pluggy
            return None
        return impls

    def _learn(self, plugin) -> None:
        """Keep what pluggy registered for ``plugin`` as its class's template, if it is one
        that :meth:`_fast_register` reproduces exactly."""
        cls = type(plugin)
        if cls in self._templates or any(attr.startswith("graphlint_") for attr in vars(plugin)):
            return  # (an instance's own attribute would be its hook: learnt from another)
        attributes = self._hook_attributes(cls)
        names: dict = {}  # function -> the first attribute name it is found under
        for attr in sorted({attr for _, attr, _ in attributes}):
            names.setdefault(getattr(cls, attr, None), attr)
        impls = []
        for caller in self._callers():
            hookimpls = getattr(caller, "_hookimpls", None)
            if not isinstance(hookimpls, list):
                self._templates[cls] = None  # not the pluggy this was written for
                return
            for impl in hookimpls:
                if impl.plugin is not plugin:
                    continue
                function = impl.function
                if (
                    not isinstance(function, types.MethodType)
                    or function.__self__ is not plugin
                    or caller.spec is None
                    or caller.is_historic()
                    or function.__func__ not in names
                ):
                    self._templates[cls] = None  # pluggy registers this class every time
                    return
                impls.append((names[function.__func__], caller, function.__func__, dict(impl.opts)))
        # in pluggy's order (that of dir()), which decides the order within a hook's
        # implementations when one rule has several for it (``specname``)
        impls.sort(key=lambda impl: impl[0])
        self._templates[cls] = (attributes, self._spec_generation, tuple(impl[1:] for impl in impls))

    def _callers(self):
        return [caller for name, caller in vars(self.hook).items() if not name.startswith("_")]

    def _fast_register(self, plugin, name: str, impls: tuple) -> bool:
        """Register ``plugin`` with its class's template; False: let pluggy do it."""
        known = self._name2plugin
        if name in known or any(p is plugin for p in known.values()):
            return False  # pluggy's errors
        if any(attr.startswith("graphlint_") for attr in vars(plugin)):
            return False  # an instance attribute would be its hook
        callers = []
        for caller, function, opts in impls:
            if getattr(self.hook, caller.name, None) is not caller:
                return False
            callers.append((caller, pluggy.HookImpl(plugin, name, function.__get__(plugin, type(plugin)), dict(opts))))
        known[name] = plugin
        for caller, impl in callers:
            caller._add_hookimpl(impl)
        self._fast[id(plugin)] = (plugin, tuple(dict.fromkeys(caller for caller, _ in callers)))
        return True


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
            rule = cls.runtime_form()(self.sink, config.options_for(cls))  # a rule unit's runtime.Runtime
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
