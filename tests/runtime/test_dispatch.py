"""graphlint's dispatcher: each hook calls every listener with the arguments it names, in
pluggy's order; a failing rule is one GL000 finding and gets no further event; the plugins
registered on pluggy's manager directly are heard at once; nested linters relay."""

from __future__ import annotations

import pluggy
import pytest

from graphlint._hookspecs import hookimpl
from graphlint.linter import Linter
from graphlint.probes._base import Probe
from graphlint.rules._base import Rule


def graph_created(graph_id):
    """Every argument the hook spec declares (the probes always pass them all)."""
    return {"graph_id": graph_id, "graph": None, "kind": "graph", "site": None}


class Recorder(Rule):
    code = "XX900"
    name = "recorder"
    summary = "records graph_created events"

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.seen = []

    def graphlint_graph_created(self, graph_id, kind):
        self.seen.append((graph_id, kind))

    def graphlint_graph_released(self, graph_id):
        self.seen.append(("released", graph_id))

    def graphlint_run_finished(self):
        self.seen.append("finished")


class Failing(Rule):
    code = "XX901"
    name = "failing"
    summary = "fails on graph_created"
    error: BaseException = RuntimeError("boom")

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.calls = 0

    def graphlint_graph_created(self, graph_id):
        self.calls += 1
        raise self.error

    def graphlint_graph_released(self, graph_id):
        self.calls += 1

    def graphlint_run_finished(self, exit_status):
        self.calls += 1


def _scope(*rules):
    linter = Linter(rules=list(rules), scoped=True, warn=lambda m: None)
    scope = linter.open_scope()
    return linter, scope, {type(r): r for r in scope.rules}


def test_each_listener_gets_the_arguments_it_names_and_nothing_else():
    linter, scope, rules = _scope(Recorder)
    linter.hook.graphlint_graph_created(**graph_created(7))
    linter.hook.graphlint_graph_released(graph_id=7)
    scope.finish()
    assert rules[Recorder].seen == [(7, "graph"), ("released", 7), "finished"]


class _Boom(BaseException):
    """Not an Exception: what a rule must never let out either."""


@pytest.mark.parametrize("error", [RuntimeError("boom"), SystemExit(7), _Boom("deep")], ids=type)
def test_a_failing_rule_is_one_gl000_finding_and_gets_no_further_event(error, monkeypatch):
    monkeypatch.setattr(Failing, "error", error)
    linter, scope, rules = _scope(Recorder, Failing)
    for graph_id in (1, 2, 3):
        linter.hook.graphlint_graph_created(**graph_created(graph_id))
        linter.hook.graphlint_graph_released(graph_id=graph_id)
    [finding] = scope.finish()
    assert finding.code == "GL000" and finding.count == 1
    assert finding.message == f"rule XX901 failed in graphlint_graph_created: {type(error).__name__}: {error}"
    assert rules[Failing].calls == 1  # not its other hook, not later events, not run_finished
    assert rules[Recorder].seen == [(1, "graph"), ("released", 1), (2, "graph"), ("released", 2),
                                    (3, "graph"), ("released", 3), "finished"]


def test_keyboard_interrupt_reaches_the_caller_and_the_rule_stays():
    Interrupted = type("Interrupted", (Failing,), {"code": "XX902", "error": KeyboardInterrupt()})
    linter, scope, rules = _scope(Interrupted)
    for graph_id in (1, 2):
        with pytest.raises(KeyboardInterrupt):
            linter.hook.graphlint_graph_created(**graph_created(graph_id))
    assert rules[Interrupted].calls == 2 and scope.finish() == []


def test_the_other_implementation_of_a_failing_rule_is_skipped_in_the_same_event():
    calls = []

    class Twice(Rule):
        code, name = "XX903", "twice"

        @hookimpl(specname="graphlint_graph_released")
        def graphlint_a(self, graph_id):
            calls.append("a")

        @hookimpl(specname="graphlint_graph_released")
        def graphlint_b(self, graph_id):  # registered after a: called before it
            calls.append("b")
            raise ValueError("b")

    linter, scope, _ = _scope(Twice)
    linter.hook.graphlint_graph_released(graph_id=1)
    assert calls == ["b"]
    assert [f.code for f in scope.finish()] == ["GL000"]


def test_an_event_lacking_an_argument_is_the_callers_error_not_a_rule_failure():
    linter, scope, rules = _scope(Recorder)
    with pytest.raises(KeyError):
        linter.hook.graphlint_graph_created(graph_id=1)  # no kind
    with pytest.raises(IndexError):
        linter.hook.graphlint_graph_created.deliver((None, 1))  # not the spec's values
    linter.hook.graphlint_graph_created(**graph_created(2))
    assert scope.finish() == [] and rules[Recorder].seen == [(2, "graph"), "finished"]


def test_values_are_delivered_in_the_specs_order():
    linter, scope, rules = _scope(Recorder)
    hook = linter.hook.graphlint_graph_created
    assert hook.argnames == ("graph", "graph_id", "kind", "site")
    hook.deliver(hook.values(graph_created(5)))
    hook.deliver((None, 6, "function", None))
    assert rules[Recorder].seen == [(5, "graph"), (6, "function")]


def test_calling_order_is_pluggys_last_registered_first_tryfirst_and_trylast_apart():
    order = []

    def plugin(label, **opts):
        class Plugin:
            @hookimpl(**opts)
            def graphlint_graph_released(self, graph_id):
                order.append(label)

        return Plugin()

    linter = Linter(rules=[], scoped=True)
    reference = pluggy.PluginManager("graphlint")  # pluggy itself, as the reference
    from graphlint import _hookspecs

    reference.add_hookspecs(_hookspecs)
    plugins = [("first", {}), ("late", {"trylast": True}), ("early", {"tryfirst": True}), ("second", {})]
    for label, opts in plugins:
        linter.pm.register(plugin(label, **opts))
        reference.register(plugin(label, **opts))
    linter.hook.graphlint_graph_released(graph_id=1)
    ours, order[:] = list(order), []
    reference.hook.graphlint_graph_released(graph_id=1)
    assert ours == order == ["early", "second", "first", "late"]


def test_a_plugin_registered_or_unregistered_on_pluggys_manager_is_heard_at_once():
    linter, scope, rules = _scope(Recorder)
    seen = []

    class Plain:
        @hookimpl
        def graphlint_graph_released(self, graph_id):
            seen.append(graph_id)

    plain = Plain()
    linter.hook.graphlint_graph_released(graph_id=1)
    linter.pm.register(plain)
    linter.hook.graphlint_graph_released(graph_id=2)
    linter.pm.unregister(plain)
    linter.hook.graphlint_graph_released(graph_id=3)
    assert seen == [2]
    assert [e for e in rules[Recorder].seen if e[0] == "released"] == [("released", 1), ("released", 2), ("released", 3)]


def test_a_failing_plain_plugin_is_said_once_and_gets_no_further_event():
    warnings = []
    linter = Linter(rules=[], scoped=True, warn=warnings.append)
    calls = []

    class Plain:
        @hookimpl
        def graphlint_graph_released(self, graph_id):
            calls.append(graph_id)
            raise ValueError("plain")

    linter.pm.register(Plain(), name="plain")
    linter.hook.graphlint_graph_released(graph_id=1)
    linter.pm.register(Recorder(None), name="another")  # the manager's plugins change: still skipped
    linter.hook.graphlint_graph_released(graph_id=2)
    assert calls == [1]
    assert warnings == ["graphlint: plugin plain failed in graphlint_graph_released: ValueError: plain; "
                        "it gets no further events"]


def test_a_wrapper_implementation_is_refused_when_registered():
    class Wrapper:
        @hookimpl(wrapper=True)
        def graphlint_graph_created(self, graph_id):
            return (yield)

    linter = Linter(rules=[], scoped=True)
    with pytest.raises(pluggy.PluginValidationError, match="wrapper"):
        linter.pm.register(Wrapper())
    assert linter.pm.get_plugins() == set() and linter.hook.graphlint_graph_created.listeners == ()


def test_a_misspelled_hook_fails_loudly_when_the_scope_opens():
    class Misspelled(Rule):
        code, name = "XX904", "misspelled"

        def graphlint_graph_craeted(self, graph_id):
            pass

    linter = Linter(rules=[Misspelled], scoped=True)
    with pytest.raises(pluggy.PluginValidationError, match="graphlint_graph_craeted"):
        linter.open_scope()


def test_a_relay_delivers_every_event_to_the_inner_linter_until_undone():
    outer, outer_scope, outer_rules = _scope(Recorder)
    inner, inner_scope, inner_rules = _scope(Recorder)
    undo = outer.relay(inner)
    outer.hook.graphlint_graph_created(**graph_created(1))
    undo()
    outer.hook.graphlint_graph_created(**graph_created(2))
    assert outer_rules[Recorder].seen == [(1, "graph"), (2, "graph")]
    assert inner_rules[Recorder].seen == [(1, "graph")]


class _Probe(Probe):
    name = "test"

    def steps(self):
        return []


def test_a_probe_says_a_malformed_event_once_and_fires_nothing_when_nobody_listens():
    warnings = []
    linter, scope, rules = _scope(Recorder)
    probe = _Probe(linter.hook, warn=warnings.append)
    probe.install()
    for graph_id in (1, 2):
        probe._fire(linter.hook.graphlint_graph_created, graph_id=graph_id)  # no kind, graph, site
    assert len(warnings) == 1 and "internal error in the test probe (graphlint_graph_created): KeyError" in warnings[0]
    probe._fire(linter.hook.graphlint_graph_created, **graph_created(3))
    scope.finish()
    probe._fire(linter.hook.graphlint_graph_created, graph_id=4)  # nobody listens: not even checked
    assert rules[Recorder].seen == [(3, "graph"), "finished"] and len(warnings) == 1
