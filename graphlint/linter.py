"""The runtime linter: the rules, registered and validated by pluggy and listening on graphlint's
own dispatcher (:class:`Linter`), per-test rule sets (:class:`RuleScope`), and the sink their
findings go to (:class:`Sink`).

pluggy does what it is for, through its public API only: the hook specifications
(:mod:`graphlint._hookspecs`), validating each plugin's implementations (arguments the spec
lacks, ``check_pending()`` for a misspelled hook), ``tryfirst``/``trylast``, third-party rules
from entry points (:mod:`graphlint.registry`). The events themselves go through
:mod:`graphlint.dispatch`: one tuple of bound methods per hook, rebuilt when a scope opens or
finishes, GL000 isolation in one place.
"""

from __future__ import annotations

import linecache
import sys
import threading
import traceback
import types
from dataclasses import replace
from typing import Any, Callable, Iterable, NamedTuple, cast

import pluggy

from graphlint import _hookspecs
from graphlint.config import Config
from graphlint.dispatch import NORMAL, TRYFIRST, TRYLAST, Dispatcher, Member, Relay, registration_order
from graphlint.findings import Finding, Location, internal_error, sorted_findings
from graphlint.registry import discover_rules
from graphlint.rules._base import Rule
from graphlint.suppression import line_suppresses, selected


class _PluginManager(pluggy.PluginManager):
    """pluggy's plugin manager, telling its linter when its plugins or hook specifications change.

    Rules' ``graphlint_*`` methods are hook implementations without a decorator. Everything
    here overrides pluggy's public methods only (as pytest's manager does).
    """

    def __init__(self, linter: "Linter"):
        super().__init__("graphlint")
        self.linter = linter

    def register(self, plugin: object, name: str | None = None) -> str | None:
        if self.linter._scope_of(plugin) is not None:
            raise ValueError(f"Plugin already registered in a rule scope: {plugin!r}")
        registered = super().register(plugin, name)
        if registered is not None:
            try:
                self.linter._plugins_changed(plugin)
            except Exception:
                super().unregister(plugin)
                raise
        return registered

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any | None:
        if plugin is not None and name is None and self.get_name(plugin) is None:
            scope = self.linter._scope_of(plugin)
            if scope is not None and isinstance(plugin, Rule):  # a scope's rule (the notebook extension drops a cell's)
                scope._drop(plugin)
                return plugin
        removed = super().unregister(plugin, name)
        self.linter._plugins_changed(None, removed=removed)
        return removed

    def add_hookspecs(self, module_or_class: types.ModuleType | type) -> None:
        super().add_hookspecs(module_or_class)
        self.linter._specs_changed(
            [name for name in dir(module_or_class) if self.parse_hookspec_opts(module_or_class, name) is not None]
        )

    def parse_hookimpl_opts(self, plugin: object, name: str) -> pluggy.HookimplOpts | None:
        if not name.startswith("graphlint_"):
            # Hook implementations carry the hook's name; skipping the rest up front keeps
            # learning a rule class cheap.
            return None
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is None and isinstance(plugin, Rule) and callable(getattr(plugin, name, None)):
            return {}  # type: ignore[return-value]  # pluggy fills in the defaults (normalize_hookimpl_opts)
        return opts


def _priority(impl: pluggy.HookImpl) -> int:
    return TRYFIRST if impl.tryfirst else TRYLAST if impl.trylast else NORMAL


def _hook_attributes(cls: type) -> tuple:
    """The ``graphlint_*`` attributes of ``cls`` and its bases, by identity: all that pluggy
    reads of a rule class to register an instance (``parse_hookimpl_opts``)."""
    return tuple(
        (klass, attr, value)
        for klass in cls.__mro__
        if klass is not object
        for attr, value in vars(klass).items()
        if attr.startswith("graphlint_")
    )


def _class_shape(cls: type) -> tuple:
    """How many attributes ``cls`` and each base has: a hook method added or removed changes it."""
    return tuple(len(vars(klass)) for klass in cls.__mro__)


def _unchanged(template: "_Template", cls: type) -> bool:
    """Whether ``cls`` has the hook attributes it had when ``template`` was learnt (checked per
    scope: the same attribute counts and every hook attribute the same object)."""
    return template.shape == _class_shape(cls) and all(
        vars(klass).get(attr) is value for klass, attr, value in template.attributes
    )


#: a hook method as the dispatcher takes it: (hook name, function, argument names, priority)
_Method = tuple[str, Callable[..., Any], tuple[str, ...], int]


class _Template(NamedTuple):
    """What pluggy registered for an instance of a rule class, to bind to the next instances:
    ``methods`` are ``(hook name, function, argument names, priority)``."""

    attributes: tuple
    shape: tuple
    generation: int
    methods: tuple


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
    """One set of rule instances with their own sink, listening on a linter's hooks.

    The pytest plugin opens a scope per test (and per ``expect_no_findings()`` block), so each
    judges only what happened while it was open; the probes stay bound to the one linter. A
    scope costs its rules' ``__init__`` and one rebuild of the hooks' listeners: each rule class
    is registered through pluggy once, and its later instances get the same methods bound.
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
            self.rules.append(cls.runtime_form()(self.sink, config.options_for(cls)))  # a rule unit's runtime.Runtime
        self.members = {id(rule): linter._member(rule) for rule in self.rules}
        linter.pm.check_pending()  # a misspelled hook method fails loudly
        linter._open(self)

    def finish(self, exit_status: int = 0) -> list[Finding]:
        """Let this scope's rules judge the run, stop their events, return their findings."""
        if self._finished is None:
            members = list(self.members.values())
            self.linter.dispatcher.only(members, "graphlint_run_finished")(exit_status=exit_status)
            self.close()
            self._finished = sorted_findings(self.sink.findings())
        return self._finished

    def close(self) -> None:
        """Stop this scope's events without judging the run (a notebook cell that never ended)."""
        self.linter._close(self)

    def _drop(self, rule: Rule) -> None:
        """Stop one rule's events."""
        member = self.members.pop(id(rule), None)
        if member is not None:
            self.linter.dispatcher.leave([member])
            self.linter._forget(rule)


class Linter:
    """The rules and the hooks probes call: pluggy registers and validates the plugins, a
    :class:`~graphlint.dispatch.Dispatcher` delivers the events.

    ``Linter(config)`` opens one scope with every selected rule (what ``graphlint run`` uses);
    ``Linter(config, scoped=True)`` opens none and leaves it to :meth:`open_scope`.
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        rules: Iterable[type[Rule]] | None = None,
        plugins: bool = True,
        scoped: bool = False,
        warn: Callable[[str], None] | None = None,
    ):
        self.config = config or Config()
        self.warn = warn or (lambda msg: print(msg, file=sys.stderr))
        self.rule_classes = (
            {cls.code: cls for cls in rules}
            if rules is not None
            else discover_rules(plugins=plugins, warn=self.warn)
        )
        self.validate(self.config)
        self.dispatcher = Dispatcher()
        self.hook = self.dispatcher.hooks
        self._lock = threading.RLock()
        self._argnames: dict[str, tuple[str, ...]] = {}  # hook name -> its spec's arguments
        self._generation = 0  # of the hook specifications
        self._templates: dict[type, _Template | None] = {}
        self._scoped: dict[int, tuple[Rule, RuleScope]] = {}  # id(rule) -> (rule, its open scope)
        self._plugin_members: dict[int, Member] = {}  # id(plugin) -> Member, registered on pm
        self._plugin_order: dict[int, int] = {}  # id(plugin) -> its registration order
        self._failed: set[int] = set()  # id(plugin): registered on pm, failed, skipped from now on
        self._learning: object = None  # the rule pluggy is registering to tell what it implements
        self.pm = _PluginManager(self)
        self.pm.add_hookspecs(_hookspecs)
        self.main = None if scoped else RuleScope(self, self.config)

    def validate(self, config: Config) -> None:
        """Raise ConfigError for codes, rules or options that do not exist."""
        config.validate(self.rule_classes)

    def open_scope(self, config: Config | None = None) -> RuleScope:
        config = config or self.config
        self.validate(config)
        return RuleScope(self, config)

    def _main(self) -> RuleScope:
        if self.main is None:
            raise AttributeError("a scoped Linter has no main scope: use open_scope()")
        return self.main

    @property
    def sink(self) -> Sink:
        return self._main().sink

    def finish(self, exit_status: int = 0) -> list[Finding]:
        """Tell the rules the run is over and return every finding, in report order."""
        return self._main().finish(exit_status)

    def relay(self, other: "Linter") -> Callable[[], None]:
        """Deliver every event of this linter's hooks to ``other``'s hooks as well (an
        ``instrument()`` inside another: the outer one's probes serve both), until the
        returned function is called."""
        methods = [
            (name, Relay(getattr(other.hook, name), argnames), argnames, TRYLAST)
            for name, argnames in self._argnames.items()
            if name in other._argnames
        ]
        member = Member(other, methods, lambda exc, hook: self.warn(
            f"graphlint: relaying {hook} to an inner instrument() failed: {type(exc).__name__}: {exc}"
        ))
        self.dispatcher.join([member])
        return lambda: self.dispatcher.leave([member])

    # -- scopes --------------------------------------------------------------------------------
    def _open(self, scope: RuleScope) -> None:
        with self._lock:
            for rule in scope.rules:
                self._scoped[id(rule)] = (rule, scope)
        self.dispatcher.join(scope.members.values())

    def _close(self, scope: RuleScope) -> None:
        members, scope.members = list(scope.members.values()), {}
        self.dispatcher.leave(members)
        with self._lock:
            for rule in scope.rules:
                self._forget(rule)

    def _forget(self, rule: Rule) -> None:
        entry = self._scoped.get(id(rule))
        if entry is not None and entry[0] is rule:
            del self._scoped[id(rule)]

    def _scope_of(self, plugin: object) -> RuleScope | None:
        """The open scope ``plugin`` is a rule of, if it is one."""
        entry = self._scoped.get(id(plugin))
        return entry[1] if entry is not None and entry[0] is plugin else None

    # -- what a rule listens to, learnt from pluggy --------------------------------------------
    def _member(self, rule: Rule) -> Member:
        """``rule`` with its hook methods bound, as pluggy would register it."""
        cls = type(rule)
        if any(attr.startswith("graphlint_") for attr in vars(rule)):
            methods = self._learn(rule)  # hooks of its own: learnt for this instance only
        else:
            template = self._templates.get(cls)
            if template is None or template.generation != self._generation or not _unchanged(template, cls):
                learnt = self._learn(rule)
                template = _Template(_hook_attributes(cls), _class_shape(cls), self._generation, tuple(
                    (hook, cast(types.MethodType, call).__func__, argnames, priority)
                    for hook, call, argnames, priority in learnt
                )) if all(_bound_to(call, rule) for _, call, _, _ in learnt) else None
                self._templates[cls] = template
                methods = learnt
            else:
                methods = [(hook, function.__get__(rule, cls), argnames, priority)
                           for hook, function, argnames, priority in template.methods]
        return Member(rule, methods, rule.report_internal_error)

    def _learn(self, plugin: Rule) -> list[_Method]:
        """What pluggy registers for ``plugin``: it validates it (unknown hooks, arguments the
        spec lacks, ``check_pending``), and is asked which methods implement which hook."""
        with self._lock:
            self._learning = plugin
            try:
                self.pm.register(plugin, f"graphlint-learning-{id(plugin):x}")
                try:
                    self.pm.check_pending()
                    return self._impls_of(plugin)
                finally:
                    self.pm.unregister(plugin)
            finally:
                self._learning = None

    def _impls_of(self, plugin: object) -> list[_Method]:
        """``plugin``'s hook methods on pm, each hook's in pluggy's order."""
        methods: list[_Method] = []
        for caller in self.pm.get_hookcallers(plugin) or ():
            if caller.name not in self._argnames:
                continue  # (pending: check_pending says so)
            for impl in caller.get_hookimpls():
                if impl.plugin is not plugin:
                    continue
                if impl.wrapper or impl.hookwrapper:
                    raise pluggy.PluginValidationError(
                        plugin, f"{caller.name} of {plugin!r}: graphlint's hooks are events, a wrapper cannot wrap them"
                    )
                methods.append((caller.name, impl.function, tuple(impl.argnames), _priority(impl)))
        return methods

    # -- plugins registered on pm directly (test helpers, the notebook extension's rules) -----
    def _plugins_changed(self, plugin: object, removed: object = None) -> None:
        with self._lock:
            if self._learning is not None and (self._learning is plugin or self._learning is removed):
                return  # a rule being learnt: it listens in its scope, not as a plugin of pm
            if plugin is not None:
                self._impls_of(plugin)  # a wrapper is refused here, before any event
                self._plugin_order[id(plugin)] = registration_order()
            if removed is not None:
                self._plugin_order.pop(id(removed), None)
                self._failed.discard(id(removed))
            self._rebuild_plugins()

    def _specs_changed(self, names: list[str]) -> None:
        with self._lock:
            for name in names:
                self._argnames[name] = tuple(getattr(self.pm.hook, name).spec.argnames)
                self.dispatcher.add_hook(name, self._argnames[name])
            self._generation += 1
            self._rebuild_plugins()

    def _rebuild_plugins(self) -> None:
        members = []
        for plugin in self.pm.get_plugins():
            if id(plugin) in self._failed or self.pm.get_name(plugin) is None:
                continue
            methods = self._impls_of(plugin)
            if methods:
                members.append(Member(plugin, methods, self._on_error(plugin), self._plugin_order.get(id(plugin))))
        old, self._plugin_members = self._plugin_members, {id(m.plugin): m for m in members}
        self.dispatcher.replace(old.values(), members)

    def _on_error(self, plugin: object) -> Callable[[BaseException, str], None]:
        def failed(exc: BaseException, hook: str) -> None:
            self._failed.add(id(plugin))
            if isinstance(plugin, Rule):
                plugin.report_internal_error(exc, hook)
            else:
                self.warn(
                    f"graphlint: plugin {self.pm.get_name(plugin)} failed in {hook}: {type(exc).__name__}: {exc}; "
                    "it gets no further events"
                )

        return failed


def _bound_to(call: Callable[..., Any], plugin: object) -> bool:
    return isinstance(call, types.MethodType) and call.__self__ is plugin
