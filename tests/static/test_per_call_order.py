"""`per_call` (does a function run again and again?) gives the same answers whatever order the
checks ask in, also for callers that call each other: an answer "no" that leaned on a question
still open is dropped when that question comes out "yes"."""

from __future__ import annotations

import ast
import itertools
import textwrap

import pytest

from graphlint.static.model.module import Module
from graphlint.static.model.repeats import per_call

#: outer and inner call each other; only the loop at the bottom makes them run per call
TWO = """\
def outer(n):
    if n:
        inner(n - 1)

def inner(n):
    outer(n)

{loop}
"""

#: a -> b -> c -> a, and one caller outside the cycle in a loop (or not)
THREE = """\
def a(n):
    b(n)

def b(n):
    c(n)

def c(n):
    if n:
        a(n - 1)

{loop}
"""


def _answers(source: str, order: tuple[str, ...]) -> dict[str, bool]:
    text = textwrap.dedent(source)
    module = Module("prog.py", text, ast.parse(text))
    functions = {fn.name: fn for fn in module.functions}
    return {name: per_call(module, functions[name]) is not None for name in order}


@pytest.mark.parametrize("order", list(itertools.permutations(("outer", "inner"))))
def test_two_functions_calling_each_other_run_per_call_in_any_order(order):
    assert _answers(TWO.format(loop="for i in range(10):\n    inner(i)"), order) == {"outer": True, "inner": True}


@pytest.mark.parametrize("order", list(itertools.permutations(("a", "b", "c"))))
def test_a_cycle_of_three_called_in_a_loop_runs_per_call_in_any_order(order):
    assert _answers(THREE.format(loop="for i in range(3):\n    b(i)"), order) == {"a": True, "b": True, "c": True}


@pytest.mark.parametrize("order", list(itertools.permutations(("a", "b", "c"))))
def test_a_cycle_of_three_called_once_runs_once_in_any_order(order):
    assert _answers(THREE.format(loop="b(3)"), order) == {"a": False, "b": False, "c": False}


def test_the_answers_are_the_same_when_asked_again():
    source = THREE.format(loop="for i in range(3):\n    b(i)")
    text = textwrap.dedent(source)
    module = Module("prog.py", text, ast.parse(text))
    functions = {fn.name: fn for fn in module.functions}
    first = [per_call(module, functions[name]) for name in ("c", "a", "b")]
    again = [per_call(module, functions[name]) for name in ("c", "a", "b")]
    assert first == again and all(first)
