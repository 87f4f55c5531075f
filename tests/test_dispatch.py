"""The probes' fast hook path: the same calls as pluggy's, and pluggy's own path whenever the
pluggy internals it relies on are missing or changed (an upgrade must never make it wrong)."""

from __future__ import annotations

import pluggy
import pytest

from graphlint.linter import Linter
from graphlint.probes import _dispatch
from graphlint.probes._base import Probe
from graphlint.rules._base import Rule


class Recorder(Rule):
    code = "XX900"
    name = "recorder"
    summary = "records graph_created events"

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.seen = []

    def graphlint_graph_created(self, graph_id):
        self.seen.append(graph_id)


@pytest.fixture
def linter_and_rule():
    linter = Linter(rules=[Recorder])
    rule = next(p for p in linter.pm.get_plugins() if isinstance(p, Recorder))
    return linter, rule


def event(graph_id):
    """Every argument the hook spec declares (the probes always pass them all)."""
    return {"graph_id": graph_id, "graph": None, "kind": "graph", "site": None}


def fast(linter):
    return Probe.fast_hook(linter.hook.graphlint_graph_created)


def test_the_fast_path_is_taken_with_the_pinned_pluggy(linter_and_rule):
    linter, rule = linter_and_rule
    hook = fast(linter)
    assert hook.pm is linter.pm, "pluggy's HookCaller no longer leads to its plugin manager"
    plan = hook.plan()
    assert plan is not _dispatch._PLUGGY, "pluggy's internals changed: the fast path is never taken"
    hook(**event(7))
    assert rule.seen == [7]


def test_a_missing_multicall_falls_back_to_pluggy(linter_and_rule, monkeypatch):
    linter, rule = linter_and_rule
    monkeypatch.setattr(_dispatch, "_MULTICALL", None)
    hook = fast(linter)
    assert hook.plan() is _dispatch._PLUGGY
    hook(**event(1))
    assert rule.seen == [1]


def test_a_manager_without_inner_hookexec_falls_back_to_pluggy(linter_and_rule, monkeypatch):
    linter, rule = linter_and_rule
    monkeypatch.delattr(linter.pm, "_inner_hookexec")
    monkeypatch.setattr(type(linter.pm), "_inner_hookexec", staticmethod(_dispatch._MULTICALL), raising=False)
    hook = fast(linter)
    assert hook.plan() is _dispatch._PLUGGY
    hook(**event(2))
    assert rule.seen == [2]


def test_a_caller_that_does_not_lead_to_its_manager_falls_back_to_pluggy(linter_and_rule):
    linter, rule = linter_and_rule
    hook = _dispatch.FastHook(linter.hook.graphlint_graph_created, pm=None)
    assert hook.plan() is _dispatch._PLUGGY
    hook(**event(3))
    assert rule.seen == [3]


def test_tracing_sees_every_call(linter_and_rule):
    linter, rule = linter_and_rule
    hook = fast(linter)
    traced = []
    undo = linter.pm.add_hookcall_monitoring(lambda name, impls, kw: traced.append((name, kw)), lambda *a: None)
    try:
        hook(**event(4))
    finally:
        undo()
    assert [name for name, _ in traced] == ["graphlint_graph_created"]
    assert rule.seen == [4]
    assert hook.plan() is not _dispatch._PLUGGY  # back on the fast path once tracing ends


def test_a_wrapper_implementation_goes_through_pluggy(linter_and_rule):
    linter, rule = linter_and_rule
    calls = []

    class Wrapper:
        @pluggy.HookimplMarker("graphlint")(wrapper=True)
        def graphlint_graph_created(self, graph_id):
            calls.append(("before", graph_id))
            result = yield
            calls.append(("after", graph_id))
            return result

    linter.pm.register(Wrapper())
    hook = fast(linter)
    assert hook.plan() is _dispatch._PLUGGY
    hook(**event(5))
    assert calls == [("before", 5), ("after", 5)] and rule.seen == [5]


class Failing(Rule):
    code = "XX901"
    name = "failing"
    summary = "fails on graph_created"

    def graphlint_graph_created(self, graph_id):
        raise RuntimeError(f"boom {graph_id}")


def test_a_failing_rule_is_a_gl000_finding_and_the_others_still_run():
    linter = Linter(rules=[Recorder, Failing])
    rule = next(p for p in linter.pm.get_plugins() if isinstance(p, Recorder))
    hook = fast(linter)
    assert hook.current() not in (_dispatch._PLUGGY, _dispatch.NOBODY)
    hook(**event(6))
    assert rule.seen == [6]
    [finding] = linter.finish()
    assert finding.code == "GL000" and "boom 6" in finding.message


def test_a_rule_registered_or_unregistered_between_calls_is_seen_at_once(linter_and_rule):
    linter, rule = linter_and_rule
    hook = fast(linter)
    hook(**event(1))
    late = Recorder(rule._sink)
    linter.pm.register(late)
    hook(**event(2))
    linter.pm.unregister(rule)
    hook(**event(3))
    assert rule.seen == [1, 2] and late.seen == [2, 3]
    linter.pm.unregister(late)
    assert hook.current() is _dispatch.NOBODY
