"""GL301's runtime form: sessions created per line and per graph."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from graphlint.rules.session_churn import SessionChurn


@dataclass(slots=True)
class _GraphSessions:
    """The sessions created for one graph: how many, and the sites of the first few."""

    count: int = 0
    sites: list = field(default_factory=list)


def _frame(path, line):
    from graphlint.stacks import Frame

    return Frame(path, line, "")


class Runtime(SessionChurn):
    """SessionChurn at runtime: the hooks, and the state they keep."""

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.by_site: Counter = Counter()
        # graph -> its sessions (the first max-per-graph + 1 sites); dropped with the graph
        self.by_graph: dict[int, _GraphSessions] = {}
        # graphs released with too many sessions: (site, count) -> (site, the first two sites)
        self.released: dict[tuple, tuple] = {}

    def graphlint_session_created(self, graph_id, site):
        if site is not None:
            self.by_site[site[:2]] += 1
        entry = self.by_graph.get(graph_id)
        if entry is None:
            entry = self.by_graph[graph_id] = _GraphSessions()
        entry.count += 1
        if len(entry.sites) <= self.config["max-per-graph"]:
            entry.sites.append(site)

    def graphlint_graph_released(self, graph_id):
        entry = self.by_graph.pop(graph_id, None)
        if entry is not None:
            self._keep(entry)

    def _keep(self, entry: _GraphSessions) -> None:
        """Remember a graph with too many sessions by its site, not by the graph."""
        if entry.count <= self.config["max-per-graph"]:
            return
        where = entry.sites[self.config["max-per-graph"]]
        if where is None:
            return
        self.released.setdefault((where[:2], entry.count), (where, entry.sites[:2]))

    def graphlint_run_finished(self):
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

