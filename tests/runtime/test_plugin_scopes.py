"""Rule scopes (a fresh set of rules per test): each rule class registered through pluggy once and
its later instances bound to the same methods, in pluggy's order; no state carried from one
scope into the next; isolation kept."""

from __future__ import annotations


import pluggy
import pytest

# In-process pytester runs restore sys.modules afterwards, and TensorFlow cannot be imported
# twice in one process: import it out here, before any of them (as test_pytest_plugin does).
import tensorflow  # noqa: F401

from graphlint.config import Config
from graphlint.findings import Location
from graphlint.linter import Linter
from graphlint.probes._base import Probe
from graphlint.rules._base import Rule

HERE = Location("<scope test>", 1)


def _graph(graph_id):
    return {"graph": None, "graph_id": graph_id, "kind": "graph", "site": None}


class Counter(Rule):
    """Counts the graphs of its scope; reports the count and each graph id it saw."""

    code = "XX910"
    name = "counter"
    summary = "counts graph_created events"
    options = {"label": "graphs"}

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.seen = []

    def graphlint_graph_created(self, graph_id):
        self.seen.append(graph_id)
        self.report(f"graph {graph_id}", Location("<scope test>", 100 + graph_id))

    def graphlint_run_finished(self, exit_status):
        self.report(f"{len(self.seen)} {self.config['label']}", HERE)


class Boom(Rule):
    code = "XX911"
    name = "boom"
    summary = "raises on every graph"

    def graphlint_graph_created(self, graph_id):
        raise RuntimeError(f"boom {graph_id}")


class Released(Rule):
    code = "XX912"
    name = "released"
    summary = "reports released graphs"

    @pluggy.HookimplMarker("graphlint")(tryfirst=True)
    def graphlint_graph_released(self, graph_id):
        self.report(f"released {graph_id}", HERE)


class Twice(Rule):
    """Two implementations of one hook (``specname``), both ``trylast``: their order is pluggy's."""

    code = "XX918"
    name = "twice"
    summary = "two implementations of graph_released"

    @pluggy.HookimplMarker("graphlint")(specname="graphlint_graph_released", trylast=True)
    def graphlint_b_released(self, graph_id):
        self.report(f"b {graph_id}", HERE)

    @pluggy.HookimplMarker("graphlint")(specname="graphlint_graph_released", trylast=True)
    def graphlint_a_released(self, graph_id):
        self.report(f"a {graph_id}", HERE)


RULES = [Counter, Boom, Released, Twice]


def _messages(findings):
    return sorted((f.code, f.message) if f.count == 1 else (f.code, f.message, f.count) for f in findings)


def _listening(linter):
    """Every hook's listeners: (hook, plugin class, method, arguments it takes)."""
    return [
        (hook.name, type(member.plugin).__name__, call.__func__.__name__, pick)
        for hook in linter.hook
        for call, pick, member, _ in hook.listeners
    ]


class _Probe(Probe):
    def steps(self):
        return []


def _counting_registrations(monkeypatch, linter):
    """The rules pluggy is asked to register from now on (to learn what they implement)."""
    registered = []
    register = linter.pm.register

    def counting(plugin, name=None):
        registered.append(type(plugin).__name__)
        return register(plugin, name)

    monkeypatch.setattr(linter.pm, "register", counting)
    return registered


@pytest.mark.parametrize("call", ["hook", "probe"])
def test_a_scope_sees_only_its_own_events_and_counts_from_zero(call):
    linter = Linter(rules=RULES, scoped=True)
    probe = _Probe(linter.hook, warn=print)
    probe.install()

    def fire(graph_id):
        if call == "hook":
            linter.hook.graphlint_graph_created(**_graph(graph_id))
        else:
            probe._fire(linter.hook.graphlint_graph_created, **_graph(graph_id))

    rounds = []
    for ids in ([1, 2, 3], [4], []):
        scope = linter.open_scope()
        [counter] = [r for r in scope.rules if isinstance(r, Counter)]
        assert counter.seen == []  # a fresh rule: nothing from the scope before
        for graph_id in ids:
            fire(graph_id)
        rounds.append(_messages(scope.finish()))
        assert _listening(linter) == []  # finishing stops every rule of the scope
    assert rounds[0] == _messages_for([1, 2, 3])
    assert rounds[1] == _messages_for([4])  # graphs 1-3 (and their GL000s) are not repeated
    assert rounds[2] == [("XX910", "0 graphs")]


def _messages_for(ids):
    found = [("XX910", f"graph {i}") for i in ids] + [("XX910", f"{len(ids)} graphs")]
    if ids:  # one GL000, for the first graph: the failed rule gets no further event
        found.append(("GL000", f"rule XX911 failed in graphlint_graph_created: RuntimeError: boom {ids[0]}"))
    return sorted(found)


def test_gl000_message_shape_matches_the_one_the_round_test_expects():
    linter = Linter(rules=[Boom], scoped=True)
    scope = linter.open_scope()
    linter.hook.graphlint_graph_created(**_graph(9))
    [finding] = scope.finish()
    assert (finding.code, finding.message) == (
        "GL000",
        "rule XX911 failed in graphlint_graph_created: RuntimeError: boom 9",
    )


def test_later_instances_listen_exactly_as_pluggy_registers_them(monkeypatch):
    linter = Linter(rules=RULES, scoped=True)
    registered = _counting_registrations(monkeypatch, linter)
    first = linter.open_scope()  # each class learnt through pluggy
    assert sorted(registered) == sorted(cls.__name__ for cls in RULES)
    first.finish()
    registered.clear()
    linter.open_scope()  # the same classes again: bound from what pluggy said, no registration
    assert registered == []
    reference = Linter(rules=[], scoped=True)
    for cls in RULES:  # fresh instances registered by pluggy itself, in the same order
        reference.pm.register(cls(None))
    assert _listening(linter) == _listening(reference) != []
    # and that order is pluggy's: last registered first, tryfirst before the rest, trylast after
    for hook in ("graphlint_graph_created", "graphlint_graph_released", "graphlint_run_finished"):
        ours = [(type(m.plugin).__name__, call.__func__.__name__) for call, _, m, _ in getattr(linter.hook, hook).listeners]
        pluggys = [(type(i.plugin).__name__, i.function.__name__)
                   for i in reversed(getattr(reference.pm.hook, hook).get_hookimpls())]
        assert ours == pluggys


def test_nested_scopes_have_their_own_rules_and_the_outer_one_goes_on():
    linter = Linter(rules=[Counter], scoped=True)
    outer = linter.open_scope()
    linter.hook.graphlint_graph_created(**_graph(1))
    inner = linter.open_scope()
    linter.hook.graphlint_graph_created(**_graph(2))
    assert _messages(inner.finish()) == [("XX910", "1 graphs"), ("XX910", "graph 2")]
    linter.hook.graphlint_graph_created(**_graph(3))
    assert _messages(outer.finish()) == [("XX910", "3 graphs"), ("XX910", "graph 1"), ("XX910", "graph 2"), ("XX910", "graph 3")]


def test_options_of_each_scope_reach_its_own_rules():
    linter = Linter(rules=[Counter], scoped=True)
    plain = linter.open_scope()
    custom = linter.open_scope(Config(rule_options={"XX910": {"label": "trees"}}))
    linter.hook.graphlint_graph_created(**_graph(1))
    assert ("XX910", "1 trees") in _messages(custom.finish())
    assert ("XX910", "1 graphs") in _messages(plain.finish())


def test_a_failing_rule_is_gl000_and_the_others_still_run_in_a_later_scope():
    linter = Linter(rules=[Counter, Boom], scoped=True)
    linter.open_scope().finish()
    scope = linter.open_scope()
    probe = _Probe(linter.hook)
    probe.install()
    probe._fire(linter.hook.graphlint_graph_created, **_graph(5))
    linter.hook.graphlint_graph_created(**_graph(6))
    assert _messages(scope.finish()) == _messages_for([5, 6])


def test_a_hook_added_to_a_rule_class_later_is_heard(monkeypatch):
    class Late(Rule):
        code = "XX913"
        name = "late"
        summary = "gets a hook after its first registration"

    linter = Linter(rules=[Late], scoped=True)
    linter.open_scope().finish()
    linter.open_scope().finish()  # learnt: no hook at all

    def graphlint_graph_released(self, graph_id):
        self.report(f"late {graph_id}", HERE)

    monkeypatch.setattr(Late, "graphlint_graph_released", graphlint_graph_released, raising=False)
    registered = _counting_registrations(monkeypatch, linter)
    scope = linter.open_scope()
    linter.hook.graphlint_graph_released(graph_id=3)
    assert _messages(scope.finish()) == [("XX913", "late 3")]
    scope = linter.open_scope()  # and learnt again, once
    linter.hook.graphlint_graph_released(graph_id=4)
    assert _messages(scope.finish()) == [("XX913", "late 4")]
    assert registered == ["Late"]


def test_a_hook_of_a_base_class_replaced_later_is_the_one_called(monkeypatch):
    class Base(Rule):
        code = "XX914"
        name = "base"
        summary = "a hook in a base class"

        def graphlint_graph_released(self, graph_id):
            self.report(f"old {graph_id}", HERE)

    class Child(Base):
        code = "XX915"
        name = "child"

    linter = Linter(rules=[Child], scoped=True)
    linter.open_scope().finish()
    linter.open_scope().finish()

    def graphlint_graph_released(self, graph_id):
        self.report(f"new {graph_id}", HERE)

    monkeypatch.setattr(Base, "graphlint_graph_released", graphlint_graph_released)
    scope = linter.open_scope()
    linter.hook.graphlint_graph_released(graph_id=1)
    assert _messages(scope.finish()) == [("XX915", "new 1")]


def test_a_hook_removed_from_a_rule_class_later_is_no_longer_called(monkeypatch):
    class Gone(Rule):
        code = "XX919"
        name = "gone"
        summary = "loses its hook after its first registration"

        def graphlint_graph_released(self, graph_id):
            self.report(f"gone {graph_id}", HERE)

    linter = Linter(rules=[Gone], scoped=True)
    linter.open_scope().finish()
    monkeypatch.delattr(Gone, "graphlint_graph_released")
    scope = linter.open_scope()
    linter.hook.graphlint_graph_released(graph_id=1)
    assert scope.finish() == [] and _listening(linter) == []


def test_an_instance_attribute_named_like_a_hook_is_that_instances_own():
    class Shadowed(Rule):
        code = "XX916"
        name = "shadowed"
        summary = "sets a hook per instance"

        def __init__(self, sink, options=None):
            super().__init__(sink, options)
            self.graphlint_graph_released = self._released

        def _released(self, graph_id):
            self.report(f"own {graph_id}", HERE)

    linter = Linter(rules=[Shadowed], scoped=True)
    for graph_id in (1, 2, 3):
        scope = linter.open_scope()
        linter.hook.graphlint_graph_released(graph_id=graph_id)
        assert _messages(scope.finish()) == [("XX916", f"own {graph_id}")]


def test_new_hook_specifications_are_heard_by_the_next_scope():
    class Spec:
        @pluggy.HookspecMarker("graphlint")
        def graphlint_extra(self, value):
            """An extra hook."""

    class Extra(Rule):
        code = "XX917"
        name = "extra"
        summary = "implements a hook with no spec yet"

        def graphlint_extra(self, value):
            self.report(f"extra {value}", HERE)

    linter = Linter(rules=[Extra], scoped=True)
    with pytest.raises(pluggy.PluginValidationError):
        linter.open_scope()  # no such hook (yet): a misspelling
    linter.pm.add_hookspecs(Spec)
    linter.open_scope().finish()
    scope = linter.open_scope()
    linter.hook.graphlint_extra(value=1)
    assert _messages(scope.finish()) == [("XX917", "extra 1")]


def test_pluggy_errors_are_kept_for_rules():
    linter = Linter(rules=[Counter], scoped=True)
    scope = linter.open_scope()
    [rule] = scope.rules
    with pytest.raises(ValueError):
        linter.pm.register(rule, name="another name")  # already listening in a scope
    linter.pm.register(Counter(scope.sink), name="taken")
    with pytest.raises(ValueError):
        linter.pm.register(Counter(scope.sink), name="taken")  # name taken
    linter.pm.set_blocked("blocked")
    assert linter.pm.register(Counter(scope.sink), name="blocked") is None
    scope.finish()


def test_a_rule_unregistered_directly_leaves_nothing_behind():
    """(as the Jupyter extension does with the rules of a cell that never finished)"""
    linter = Linter(rules=[Counter, Released], scoped=True)
    linter.open_scope().finish()
    scope = linter.open_scope()
    for rule in scope.rules:
        assert linter.pm.unregister(rule) is rule
    assert _listening(linter) == []
    linter.hook.graphlint_graph_created(**_graph(1))
    assert all(rule.seen == [] for rule in scope.rules if isinstance(rule, Counter))
    assert scope.finish() == []
