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
busy, a probe's own failure said once). A hot path may look at :attr:`Hook.listeners` first: an
empty tuple means nobody listens, so the event need not even be built. That is the whole
contract: a hook's name, its arguments by keyword, plain data or borrowed objects
(:mod:`graphlint._hookspecs`).

Isolation
---------
A listener that raises anything but ``KeyboardInterrupt`` (``SystemExit`` included) is handed to
its member's ``on_error`` once — for a rule, its GL000 finding — and the member leaves: it gets
no further event, not even the rest of this one, while every other listener carries on. An
event that lacks an argument a listener names is the caller's bug, not the listener's: its
``KeyError`` reaches the probe.
"""

from __future__ import annotations

import itertools
import threading
from functools import lru_cache
from operator import itemgetter
from typing import Any, Callable, Iterable

#: A listener: (bound method, what it takes of the event, its member). What it takes is ``None``
#: (no argument), a ``str`` (one argument) or an ``itemgetter`` (several).
Listener = tuple  # tuple[Callable[..., object], None | str | itemgetter, Member]

#: pluggy's order within one hook: ``tryfirst`` ones, then the rest, then ``trylast`` ones.
TRYFIRST, NORMAL, TRYLAST = 0, 1, 2

_joined = itertools.count(1)  # registration order: the later a member joined, the earlier it is called


def registration_order() -> int:
    """The next number of the registration order (a member made with it is called before every
    member made earlier, within the same priority)."""
    return next(_joined)


@lru_cache(maxsize=None)
def _pick(argnames: tuple[str, ...]):
    if not argnames:
        return None
    if len(argnames) == 1:
        return argnames[0]
    return itemgetter(*argnames)


class Member:
    """One plugin as the dispatcher sees it: its hook methods and who hears of its failure.

    ``methods`` are ``(hook name, bound method, argument names, priority)`` in the order pluggy
    registered them; ``on_error(exc, hook_name)`` is called once, on the first failure.
    """

    __slots__ = ("plugin", "methods", "on_error", "order", "dispatcher", "failed", "listeners")

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
        #: (hook name, sort key, listener) per method: the sort key is pluggy's calling order
        self.listeners = tuple(
            (hook_name, (priority, -self.order, -position), (call, _pick(tuple(argnames)), self))
            for position, (hook_name, call, argnames, priority) in enumerate(self.methods)
        )

    def __repr__(self) -> str:
        return f"<Member {self.plugin!r}>"


class Hook:
    """One hook: its name and the listeners to call, in order, for each event."""

    __slots__ = ("name", "listeners")

    def __init__(self, name: str, listeners: tuple = ()):
        self.name = name
        self.listeners: tuple[Listener, ...] = listeners

    def __repr__(self) -> str:
        return f"<Hook {self.name}: {len(self.listeners)} listeners>"

    def __call__(self, **event: Any) -> None:
        self.deliver(event)

    def deliver(self, event: dict) -> None:
        """Call every listener with the arguments it names; isolate each one's failure."""
        failed = None
        for call, pick, member in self.listeners:
            if failed is not None and member in failed:
                continue  # it failed earlier in this event
            if pick is None:
                args: tuple = ()
            elif type(pick) is str:
                args = (event[pick],)
            else:
                args = pick(event)
            try:
                call(*args)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # SystemExit too: a rule never ends the program
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

    def __iter__(self):
        return iter(list(vars(self).values()))


class Dispatcher:
    """The listeners of every hook, built from the members that joined.

    The :class:`Hook` objects are made once per hook name and stay the same for the
    dispatcher's life (probes keep them); only their ``listeners`` are replaced.
    """

    def __init__(self):
        self.hooks = Hooks()
        self._members: list[Member] = []
        self._lock = threading.RLock()

    def add_hook(self, name: str) -> Hook:
        with self._lock:
            hook = vars(self.hooks).get(name)
            if hook is None:
                hook = Hook(name)
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
        by_hook: dict[str, list] = {}
        for member in self._members:
            for hook_name, key, listener in member.listeners:
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
        return Hook(hook_name, tuple(entry for entry in hook.listeners if id(entry[2]) in wanted))


def _first(entry: tuple):
    return entry[0]


class Relay:
    """A hook of another dispatcher called as a listener: every argument by keyword."""

    __slots__ = ("hook", "names")

    def __init__(self, hook: Hook, names: tuple[str, ...]):
        self.hook = hook
        self.names = names

    def __call__(self, *values: Any) -> None:
        self.hook.deliver(dict(zip(self.names, values)))
