"""GL502's runtime form: the functions made at each line, and which of them were traced."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Hashable

from graphlint.rules import _jax, _torch
from graphlint.rules.function_recreated import FunctionRecreated

if TYPE_CHECKING:  # the runtime engine's: `graphlint check` never imports it
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame

    #: what a function made by the user is: (site, definition, framework, wrapped, owner)
    _Created = tuple[Frame, Frame | None, str, Hashable, int | None]


@dataclass(slots=True)
class _Site:
    """The functions made at one line, and how often they were traced."""

    site: Frame  # the line
    definition: Frame | None  # where the wrapped function is defined
    framework: str  # "tensorflow" or "jax"
    functions: int = 0
    traces: int = 0
    wrapped: dict[Hashable, int] = field(default_factory=dict)  # the wrapped function (def line or name) -> functions


class Runtime(FunctionRecreated):
    """FunctionRecreated at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.created: dict[int, _Created] = {}  # function id -> what it is
        self.called: set[int] = set()  # functions traced for a call
        self.ahead: dict[int, int] = {}  # function id -> traces for get_concrete_function alone
        self.sites: dict[tuple[tuple[str, int], int | None], _Site] = {}  # ((path, line), owner) -> what was made there for it
        self.torch_made: dict[tuple[tuple[str, int], str], _torch.Made] = {}  # ((path, line), api) -> targets made there

    # -- runtime form ----------------------------------------------------------------------
    def graphlint_function_created(
        self, function_id: int, name: str, definition_site: Frame | None, site: Frame | None, by_user: bool,
        framework: str, api: str | None, target: Hashable,
    ) -> None:
        # Made in __init__: the new object's own function, as a decorated method's per-instance copy.
        if framework == "torch":  # counted as made: torch.compile compiles on a call, jit and export at once
            if api is not None and target is not None and by_user and site is not None and site.function != "__init__":
                _torch.made(self.torch_made, site, definition_site, name, api, target)
            return
        if by_user and site is not None and site.function != "__init__":
            from graphlint.stacks import receiver

            # Counted per object a method makes it for: a model's make_train_function() makes
            # one function for each model (four models, four functions, none made again).
            owner = receiver(0)
            wrapped = definition_site[:2] if definition_site is not None else name
            self.created[function_id] = (site, definition_site, framework, wrapped, owner)

    def graphlint_function_traced(self, function_id: int, ahead_of_time: bool) -> None:
        made = self.created.get(function_id)
        if made is None:
            return
        if ahead_of_time:  # traced for its graph or output signature only (get_concrete_function)
            self.ahead[function_id] = self.ahead.get(function_id, 0) + 1
            return
        site, definition, framework, wrapped, owner = made
        entry = self.sites.get((site[:2], owner))
        if entry is None:
            entry = self.sites[(site[:2], owner)] = _Site(site, definition, framework)
        entry.traces += 1
        if function_id not in self.called:  # its first trace for a call: a new function at work
            self.called.add(function_id)
            entry.functions += 1
            entry.traces += self.ahead.pop(function_id, 0)
            entry.wrapped[wrapped] = entry.wrapped.get(wrapped, 0) + 1

    def graphlint_function_released(self, function_id: int) -> None:
        self.created.pop(function_id, None)
        self.called.discard(function_id)
        self.ahead.pop(function_id, None)

    def graphlint_run_finished(self) -> None:
        limit = self.config["max-per-site"]
        for entry in self.sites.values():
            site, definition, functions = entry.site, entry.definition, entry.functions
            # The same function wrapped again and again; a line that wraps distinct functions
            # once each (a list of functions compiled in a comprehension, a helper called with
            # different functions) compiles each of them once.
            if functions > limit and max(entry.wrapped.values()) > limit:
                related = [(definition, "the function it wraps is defined here")] if definition else []
                if definition is not None and definition[:2] == site[:2]:
                    related = []  # a lambda: defined on the line that wraps it
                jax = entry.framework == "jax"
                self.report(
                    f"`{'jax.jit' if jax else 'tf.function'}` made {functions} new functions at this line, "
                    f"each traced afresh ({entry.traces} traces in all)",
                    site,
                    related=related,
                    fix=_jax.RECREATED_FIX if jax else None,
                )
        for made in self.torch_made.values():
            found = _torch.remade(made, limit)
            if found is not None:
                defined = made.definition
                related = [(defined, f"`{defined.function}()` is defined here")] if defined is not None else []
                if defined is not None and defined[:2] == made.site[:2]:
                    related = []  # a lambda: defined on the line that compiles it
                self.report(found[0], made.site, related=related, fix=found[1])
        self.torch_made.clear()
        self.sites.clear()
        self.created.clear()
        self.called.clear()
        self.ahead.clear()

