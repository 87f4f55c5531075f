"""A rule that fails inside a real probe's event is one GL000 finding and the program goes on,
whatever it raised (``SystemExit`` and other ``BaseException``s too) — except ``KeyboardInterrupt``,
which is the user's and reaches the program. In-process, real TensorFlow."""

from __future__ import annotations

import pytest
import tensorflow as tf

from graphlint.instrument import instrument
from graphlint.linter import Linter
from graphlint.registry import discover_rules
from graphlint.rules._base import Rule


class _Deep(BaseException):
    """Neither an Exception nor an exit: still not the program's business."""


def _raising(error: BaseException) -> type[Rule]:
    class Raising(Rule):
        code, name, summary = "XX950", "raising", "raises when a graph is entered"
        calls = 0

        def graphlint_graph_entered(self, site):
            type(self).calls += 1
            raise error

    return Raising


def _program() -> list[str]:
    """The user's program: enters a graph directly twice (GL103), says what it did."""
    done = []
    for _ in range(2):
        with tf.Graph():
            done.append("entered")
    done.append("went on")
    return done


@pytest.mark.parametrize("error", [KeyError("oops"), SystemExit(7), _Deep("deep")], ids=type)
def test_a_rule_failing_in_a_probes_event_is_gl000_and_the_program_goes_on(error):
    raising = _raising(error)
    linter = Linter(rules=[*discover_rules(plugins=False).values(), raising], warn=lambda m: None)
    with instrument(linter, warn=lambda m: None):
        done = _program()
    findings = linter.finish()
    assert done == ["entered", "entered", "went on"]
    [internal] = [f for f in findings if f.code == "GL000"]
    assert internal.message == f"rule XX950 failed in graphlint_graph_entered: {type(error).__name__}: {error}"
    assert internal.count == 1 and raising.calls == 1  # skipped from then on
    assert [f.count for f in findings if f.code == "GL103"] == [2]  # the built-in rule carried on


def test_keyboard_interrupt_in_a_rule_reaches_the_program_and_everything_is_restored():
    from tensorflow.python.framework import ops

    enter = vars(ops.Graph)["__enter__"]
    linter = Linter(rules=[_raising(KeyboardInterrupt())], warn=lambda m: None)
    with pytest.raises(KeyboardInterrupt):
        with instrument(linter, warn=lambda m: None):
            _program()
    assert vars(ops.Graph)["__enter__"] is enter
    assert linter.finish() == []
