"""GL303's runtime form: the sessions open per graph, and the ones dropped unclosed."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from graphlint.rules.session_leak import SessionLeak

if TYPE_CHECKING:
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame


class Runtime(SessionLeak):
    """SessionLeak at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.open: dict[int, dict[int, Frame | None]] = defaultdict(dict)  # graph -> session -> its site
        self.piled: set[int] = set()
        # Unclosed sessions already collected, reported once the program shows it went on
        # (a later TensorFlow event): a session collected while the script's globals are torn
        # down, after its last statement, was merely open at the end.
        self.dropped: list[Frame] = []
        # Sessions created while this rule watched: under the pytest plugin a session made by an
        # earlier test and dropped during this one is not this test's doing.
        self.mine: set[int] = set()

    def _went_on(self) -> None:
        dropped, self.dropped = self.dropped, []
        for site in dropped:
            self.report(
                "a session created here was dropped without close() while the program went on",
                site,
            )

    def graphlint_op_added(self) -> None:
        if self.dropped:
            self._went_on()

    def graphlint_session_run(self) -> None:
        if self.dropped:
            self._went_on()

    def graphlint_session_created(self, session_id: int, graph_id: int, site: Frame | None) -> None:
        if self.dropped:
            self._went_on()
        self.mine.add(session_id)
        sessions = self.open[graph_id]
        sessions[session_id] = site
        if len(sessions) > self.config["max-open-per-graph"] and graph_id not in self.piled:
            self.piled.add(graph_id)
            sites = list(sessions.values())
            self.report(
                f"{len(sessions)} sessions are open at once on the same graph; none of the "
                "earlier ones was closed",
                site,
                related=[(s, "an earlier session, still open") for s in sites[:-1][:3]],
            )

    def graphlint_session_closed(self, session_id: int, graph_id: int) -> None:
        self.open[graph_id].pop(session_id, None)

    def graphlint_session_released(self, session_id: int, graph_id: int, closed: bool, created_site: Frame | None) -> None:
        self.open[graph_id].pop(session_id, None)
        if session_id in self.mine:
            self.mine.discard(session_id)
            if not closed and created_site is not None:
                self.dropped.append(created_site)

    def graphlint_graph_released(self, graph_id: int) -> None:
        self.open.pop(graph_id, None)
        self.piled.discard(graph_id)

    def graphlint_run_finished(self) -> None:
        self.dropped.clear()  # collected at the end: nothing ran after them

