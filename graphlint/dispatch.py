"""The event path: a probe calls a hook, every plugin's method for it is called, a failure is
isolated — all in this module, with no generated code.

pluggy discovers and validates the plugins (:mod:`graphlint.linter`: hook specifications, the
arguments each implementation names, ``tryfirst``/``trylast``, ``check_pending()``); this module
delivers the events. The linter hands it :class:`Member` objects — one per plugin, with its hook
methods already bound — and it keeps, per hook, one tuple of listeners in pluggy's calling
order, rebuilt when a member joins or leaves (a rule scope opens or finishes), never per event.

How a probe emits an event
--------------------------
A probe is given the linter's hooks (``linter.hook``, a :class:`Hooks`) and calls a hook by its
spec's name with every argument the spec declares, as keywords::

    self._fire(self.hook.graphlint_session_created, session_id=sid, graph_id=gid, site=site)

:meth:`graphlint.probes._base.Probe._fire` adds what every probe needs around
:meth:`Hook.deliver` (no re-entry from inside a hook, release events deferred while a hook is
busy, a probe's own failure said once). That is the whole contract: a hook's name, its
arguments by keyword, plain data or borrowed objects (:mod:`graphlint._hookspecs`).

A path that runs per op may do what ``_fire`` does itself: look at :attr:`Hook.listeners`
first (an empty tuple: nobody listens, the event need not even be built) and hand
:meth:`Hook.deliver` the values in the spec's order, a tuple, with no dictionary per event.

Isolation
---------
A listener that raises anything but ``KeyboardInterrupt`` (``SystemExit`` included) is handed to
its member's ``on_error`` once — for a rule, its GL000 finding — and the member leaves: it gets
no further event, not even the rest of this one, while every other listener carries on. An
event that lacks an argument is the caller's bug, not a listener's: :meth:`Hook.values` raises
``KeyError`` before any listener is called.
"""

from __future__ import annotations

import itertools
import threading
from functools import lru_cache
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence

#: A listener: (bound method, what it takes of the event's values, its member, whether it takes
#: several). What it takes is ``None`` (no argument), an ``int`` (one: its position in the spec)
#: or an ``itemgetter`` of positions.
Listener = tuple  # tuple[Callable[..., object], None | int | itemgetter, Member, bool]

#: pluggy's order within one hook: ``tryfirst`` ones, then the rest, then ``trylast`` ones.
TRYFIRST, NORMAL, TRYLAST = 0, 1, 2

_joined = itertools.count(1)  # registration order: the later a member joined, the earlier it is called


def registration_order() -> int:
    """The next number of the registration order (a member made with it is called before every
    member made earlier, within the same priority)."""
    return next(_joined)


@lru_cache(maxsize=None)
def _pick(spec: tuple[str, ...], argnames: tuple[str, ...]) -> int | Callable[[Sequence[Any]], tuple[Any, ...]] | None:
    """What a listener naming ``argnames`` takes of values in ``spec``'s order."""
    positions = [spec.index(name) for name in argnames]
    if not positions:
        return None
    if len(positions) == 1:
        return positions[0]
    return itemgetter(*positions)


class Member:
    """One plugin as the dispatcher sees it: its hook methods and who hears of its failure.

    ``methods`` are ``(hook name, bound method, argument names, priority)`` in the order pluggy
    registered them; ``on_error(exc, hook_name)`` is called once, on the first failure.
    """

    __slots__ = ("plugin", "methods", "on_error", "order", "dispatcher", "failed", "keys")

    def __init__(
        self,
        plugin: object,
        methods: Iterable[tuple[str, Callable, tuple[str, ...], int]],
        on_error: Callable[[BaseException, str], None],
        order: int | None = None,
    ):
        self.plugin = plugin
        self.methods = tuple(methods)
        self.on_error = on_error
        self.order = registration_order() if order is None else order
        self.dispatcher: Dispatcher | None = None
        self.failed = False
        #: each method's place in pluggy's calling order of its hook
        self.keys = tuple((priority, -self.order, -position) for position, (_, _, _, priority) in enumerate(self.methods))

    def __repr__(self) -> str:
        return f"<Member {self.plugin!r}>"


class Hook:
    """One hook: its name, its spec's arguments in order, and the listeners to call per event.

    An event is delivered as its values in the spec's order (:meth:`deliver`); ``hook(**event)``
    and :meth:`values` turn keyword arguments into them.
    """

    __slots__ = ("name", "argnames", "listeners", "_pack")

    def __init__(self, name: str, argnames: Iterable[str], listeners: tuple = ()):
        self.name = name
        self.argnames = tuple(argnames)
        self.listeners: tuple[Listener, ...] = listeners
        # what values() takes of keyword arguments: several, an itemgetter; one, its name; none, None
        names = self.argnames
        self._pack: Any = itemgetter(*names) if len(names) > 1 else names[0] if names else None

    def __repr__(self) -> str:
        return f"<Hook {self.name}: {len(self.listeners)} listeners>"

    def __call__(self, **event: Any) -> None:
        self.deliver(self.values(event))

    def values(self, event: Mapping[str, Any]) -> tuple:
        """The arguments of ``event`` in the spec's order; ``KeyError`` when one is missing."""
        pack = self._pack
        if pack is None:
            return ()
        if type(pack) is str:
            return (event[pack],)
        return pack(event)

    def deliver(self, values: tuple) -> None:
        """Call every listener with the values it names; isolate each one's failure."""
        failed = None
        for call, pick, member, several in self.listeners:
            if failed is not None and member in failed:
                continue  # it failed earlier in this event
            try:
                if several:
                    call(*pick(values))
                elif pick is None:
                    call()
                else:
                    call(values[pick])
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # SystemExit too: a rule never ends the program
                if type(exc) is IndexError and len(values) != len(self.argnames):
                    raise  # not the spec's values: the caller's error, not the listener's
                failed = (failed or set()) | {member}
                _fail(member, exc, self.name)


def _fail(member: Member, exc: BaseException, hook_name: str) -> None:
    if member.failed:
        return  # (another thread saw it fail first)
    member.failed = True
    if member.dispatcher is not None:
        member.dispatcher.leave([member])
    member.on_error(exc, hook_name)


class Hooks:
    """Every hook by name, as attributes: ``hooks.graphlint_op_added``."""

    if TYPE_CHECKING:  # the attributes Dispatcher.add_hook sets; a missing one stays AttributeError

        def __getattr__(self, name: str) -> Hook: ...

    def __iter__(self) -> Iterator[Hook]:
        return iter(list(vars(self).values()))


class Dispatcher:
    """The listeners of every hook, built from the members that joined.

    The :class:`Hook` objects are made once per hook name and stay the same for the
    dispatcher's life (probes keep them); only their ``listeners`` are replaced.
    """

    def __init__(self) -> None:
        self.hooks = Hooks()
        self._members: list[Member] = []
        self._lock = threading.RLock()

    def add_hook(self, name: str, argnames: Iterable[str]) -> Hook:
        with self._lock:
            hook = vars(self.hooks).get(name)
            if hook is None:
                hook = Hook(name, argnames)
                setattr(self.hooks, name, hook)
                self._rebuild()
            return hook

    def join(self, members: Iterable[Member]) -> None:
        self.replace((), members)

    def leave(self, members: Iterable[Member]) -> None:
        self.replace(members, ())

    def replace(self, leaving: Iterable[Member], joining: Iterable[Member]) -> None:
        """``leaving`` get no further events, ``joining`` get every later one."""
        with self._lock:
            gone = {id(m) for m in leaving}
            kept = [m for m in self._members if id(m) not in gone]
            for member in joining:
                if not member.failed:
                    member.dispatcher = self
                    kept.append(member)
            self._members = kept
            self._rebuild()

    @property
    def members(self) -> list[Member]:
        return list(self._members)

    def _rebuild(self) -> None:
        hooks = vars(self.hooks)
        by_hook: dict[str, list] = {}
        for member in self._members:
            for key, (hook_name, call, argnames, _) in zip(member.keys, member.methods):
                hook = hooks.get(hook_name)
                if hook is not None:
                    listener = (call, _pick(hook.argnames, tuple(argnames)), member, len(argnames) > 1)
                    by_hook.setdefault(hook_name, []).append((key, listener))
        for hook in self.hooks:
            entries = by_hook.get(hook.name)
            if entries is None:
                hook.listeners = ()
            else:
                entries.sort(key=_first)
                hook.listeners = tuple(listener for _, listener in entries)

    def only(self, members: Iterable[Member], hook_name: str) -> Hook:
        """``hook_name`` as it would be with only ``members`` listening (a scope's own
        ``graphlint_run_finished``): isolated like any hook."""
        wanted = {id(m) for m in members}
        hook = getattr(self.hooks, hook_name)
        return Hook(hook_name, hook.argnames, tuple(entry for entry in hook.listeners if id(entry[2]) in wanted))


def _first(entry: tuple) -> Any:
    return entry[0]


class Relay:
    """A hook of another dispatcher called as a listener, with every argument of the event."""

    __slots__ = ("hook", "names")

    def __init__(self, hook: Hook, names: tuple[str, ...]):
        self.hook = hook
        self.names = names

    def __call__(self, *values: Any) -> None:
        hook = self.hook
        hook.deliver(values if hook.argnames == self.names else hook.values(dict(zip(self.names, values))))
