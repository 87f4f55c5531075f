"""GL101's static form: functions that build their model again each time they run (the
model's :func:`~graphlint.static.model.rebuilds.rebuilds`), and calls in a loop of such a
function of another module of the checked tree."""

from __future__ import annotations

from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model import project
from graphlint.static.model.rebuilds import builds_and_runs, rebuilds
from graphlint.static.model.repeats import guarded, runs_more_than_once

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphlint.static.model.module import Module


def check(module: Module, options: dict[str, Any]) -> list[Hit]:
    return list(once_per_line(rebuilt_elsewhere(module) + [
        Hit(
            r.first.node,
            f"{r.function.display} builds graph ops each time it runs and {r.reason}: every run "
            "adds another copy to the default graph",
            tuple((s.node, "called here") for s in r.sites[:3]) + r.loop,
        )
        for r in rebuilds(module)
    ]))


def rebuilt_elsewhere(module: Module) -> list[Hit]:
    """Calls, in a loop, of a function of another module of the checked tree that builds a
    model and runs it: reported at the calling line (the other file may not be checked).
    Cheap tests first: how many times the loop runs is asked only of the calls that lead to
    such a function. A module whose calls lead to no other module has none."""
    found: list[Hit] = []
    if not project.reaches_elsewhere(module):
        return found
    for loop in module.loops:
        if loop.is_comprehension or project.loop_starts_fresh(module, loop):
            continue
        for call in loop.calls:
            if call.target is not None or call.under_graph_default() or guarded(call.ifs):
                continue
            resolved = project.resolve_function(module, call)
            if resolved is None or resolved[0] is module:
                continue
            other, fn = resolved
            first = builds_and_runs(other, fn)
            if first is not None and runs_more_than_once(module, call):
                found.append(
                    Hit(
                        call.node,
                        f"`{fn.name}()` builds graph ops each time it runs and is called in a loop here: "
                        "every run adds another copy to the default graph",
                        ((other.location(first.node), "it builds the model here"),),
                    )
                )
    return found
