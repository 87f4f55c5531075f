"""GL301's runtime form: sessions created per line and per graph."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphlint.rules.session_churn import SessionChurn

if TYPE_CHECKING:
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame


@dataclass(slots=True)
class _GraphSessions:
    """The sessions created for one graph: how many, and the sites of the first few."""

    count: int = 0
    sites: list[Frame | None] = field(default_factory=list)


@dataclass(slots=True)
class _Pending:
    """A session not yet counted for its graph or for its line (see ``Runtime.pending``)."""

    graph_id: int
    site: Frame | None
    again: bool  # its line had made a session for the same graph before
    for_graph: bool = False  # counted for its graph (it ran)


#: A session that runs this many times did a whole run (a training or an evaluation): one per
#: fresh graph is a trial of a sweep, not a model rebuilt per call for a few runs.
WHOLE_RUN = 10


def _frame(path: str, line: int) -> Frame:
    from graphlint.stacks import Frame

    return Frame(path, line, "")


class Runtime(SessionChurn):
    """SessionChurn at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.by_site: Counter[tuple[str, int]] = Counter()
        # graph -> its sessions (the first max-per-graph + 1 sites); dropped with the graph
        self.by_graph: dict[int, _GraphSessions] = {}
        # graphs released with too many sessions: (site, count) -> (site, the first two sites)
        self.released: dict[tuple[tuple[str, int], int], tuple[Frame, list[Frame | None]]] = {}
        # sessions not counted yet: session -> _Pending. A session counts for its graph when
        # it first runs (one made and never used, as a test of get_session() itself after
        # clear_session(), did no work afresh), and for its line when it runs again what a
        # session from that line ran before on the same graph, or feeds inputs: a model
        # rebuilt in a fresh graph per call that could have been kept and fed. A session per
        # fresh graph that holds its own case's values (a test's client graphs) is that
        # graph's one session.
        self.pending: dict[int, _Pending] = {}
        self.graph_sites: dict[int, set[tuple[str, int] | None]] = {}  # graph -> the lines that made a session for it
        # sessions counted for their line, still open: session -> its line. One that ends
        # after WHOLE_RUN runs is taken back off its line's count.
        self.counted: dict[int, tuple[str, int]] = {}

    def graphlint_session_created(self, session_id: int, graph_id: int, site: Frame | None) -> None:
        key = site[:2] if site is not None else None
        sites = self.graph_sites.setdefault(graph_id, set())
        self.pending[session_id] = _Pending(graph_id, site, key in sites)
        sites.add(key)

    def graphlint_session_run(self, session_id: int, feed_dict: Any) -> None:
        entry = self.pending.get(session_id)
        if entry is None:
            return
        if not entry.for_graph:
            entry.for_graph = True
            self._count_for_graph(entry.graph_id, entry.site)
        if entry.again or feed_dict:
            del self.pending[session_id]
            if entry.site is not None:
                self.by_site[entry.site[:2]] += 1
                self.counted[session_id] = entry.site[:2]

    def graphlint_session_closed(self, session_id: int, runs: int) -> None:
        self._ended(session_id, runs)

    def graphlint_session_released(self, session_id: int, runs: int) -> None:
        self.pending.pop(session_id, None)
        self._ended(session_id, runs)

    def _ended(self, session_id: int, runs: int) -> None:
        """A session counted for its line that ran ``WHOLE_RUN`` times did a whole run (a
        trial of a sweep): it is taken back off its line's count."""
        line = self.counted.pop(session_id, None)
        if line is not None and runs >= WHOLE_RUN:
            self.by_site[line] -= 1

    def _count_for_graph(self, graph_id: int, site: Frame | None) -> None:
        entry = self.by_graph.get(graph_id)
        if entry is None:
            entry = self.by_graph[graph_id] = _GraphSessions()
        entry.count += 1
        if len(entry.sites) <= self.config["max-per-graph"]:
            entry.sites.append(site)

    def graphlint_graph_released(self, graph_id: int) -> None:
        entry = self.by_graph.pop(graph_id, None)
        if entry is not None:
            self._keep(entry)
        self.graph_sites.pop(graph_id, None)
        if self.pending:
            self.pending = {s: entry for s, entry in self.pending.items() if entry.graph_id != graph_id}

    def _keep(self, entry: _GraphSessions) -> None:
        """Remember a graph with too many sessions by its site, not by the graph."""
        if entry.count <= self.config["max-per-graph"]:
            return
        where = entry.sites[self.config["max-per-graph"]]
        if where is None:
            return
        self.released.setdefault((where[:2], entry.count), (where, entry.sites[:2]))

    def graphlint_run_finished(self) -> None:
        self.pending.clear()
        self.counted.clear()
        self.graph_sites.clear()
        reported = set()
        for (path, line), n in self.by_site.items():
            if n > self.config["max-per-site"]:
                reported.add((path, line))
                self.report(
                    f"a new Session was created here {n} times (one per call)",
                    _frame(path, line),
                )
        for graph_id in list(self.by_graph):
            self._keep(self.by_graph.pop(graph_id))
        for (key, n), (where, first) in self.released.items():
            if key in reported:
                continue
            reported.add(key)
            self.report(
                f"{n} sessions were created for the same graph",
                where,
                related=[(s, "an earlier session for this graph") for s in first],
            )
