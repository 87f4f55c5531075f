"""GL301 session-churn, GL302 fetch-churn, GL303 session-leak."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from graphlint.findings import Severity
from graphlint.rules._base import Rule


@dataclass(slots=True)
class _GraphSessions:
    """The sessions created for one graph: how many, and the sites of the first few."""

    count: int = 0
    sites: list = field(default_factory=list)


@dataclass(slots=True)
class _Pending:
    """A session not yet counted for its graph or for its line (see ``SessionChurn.pending``)."""

    graph_id: int
    site: object
    again: bool  # its line had made a session for the same graph before
    for_graph: bool = False  # counted for its graph (it ran)


class SessionChurn(Rule):
    """Sessions created again and again.

    ## What it does
    Reports sessions created over and over: more than `max-per-site` from one line (a new
    session per call of `predict()`), or more than `max-per-graph` for one graph.

    ## Why is this bad?
    Creating a `Session` starts a runtime, allocates devices and thread pools, and throws away
    every subgraph it pruned and cached; variables must be initialized or restored again. A
    session per call turns a microsecond `run` into milliseconds, and unclosed ones hold their
    memory.

    ## Example
    ```python
    def predict(x):
        with tf.compat.v1.Session() as sess:
            sess.run(init)
            return sess.run(y, {inputs: x})
    ```

    ## Use instead
    ```python
    class Predictor:
        def __init__(self):
            self.sess = tf.compat.v1.Session(graph=graph)  # once
            self.sess.run(init)

        def predict(self, x):
            return self.sess.run(y, {inputs: x})
    ```
    """

    code = "GL301"
    repetition = True
    name = "session-churn"
    severity = Severity.WARNING
    summary = "sessions created again and again"
    fix = (
        "Create one Session per graph (e.g. in __init__), keep it, and call run() on it; "
        "close it once at the end."
    )
    options = {"max-per-site": 2, "max-per-graph": 2}
    engines = ("runtime", "static")

    def check_module(self, module):
        """Static form: see :func:`graphlint.static.sessions.session_churn`."""
        from graphlint.static.hits import report_hits
        from graphlint.static.sessions import session_churn

        report_hits(self, module, session_churn(module, self.config))

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.by_site: Counter = Counter()
        # graph -> its sessions (the first max-per-graph + 1 sites); dropped with the graph
        self.by_graph: dict[int, _GraphSessions] = {}
        # graphs released with too many sessions: (site, count) -> (site, the first two sites)
        self.released: dict[tuple, tuple] = {}
        # sessions not counted yet: session -> _Pending. A session counts for its graph when
        # it first runs (one made and never used, as a test of get_session() itself after
        # clear_session(), did no work afresh), and for its line when it runs again what a
        # session from that line ran before on the same graph, or feeds inputs: a model
        # rebuilt in a fresh graph per call that could have been kept and fed. A session per
        # fresh graph that holds its own case's values (a test's client graphs) is that
        # graph's one session.
        self.pending: dict[int, _Pending] = {}
        self.graph_sites: dict[int, set] = {}  # graph -> the lines that made a session for it

    def graphlint_session_created(self, session_id, graph_id, site):
        key = site[:2] if site is not None else None
        sites = self.graph_sites.setdefault(graph_id, set())
        self.pending[session_id] = _Pending(graph_id, site, key in sites)
        sites.add(key)

    def graphlint_session_run(self, session_id, feed_dict):
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

    def graphlint_session_released(self, session_id):
        self.pending.pop(session_id, None)

    def _count_for_graph(self, graph_id, site):
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

    def graphlint_run_finished(self):
        self.pending.clear()
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


class FetchChurn(Rule):
    """One session run with many different fetch/feed combinations.

    ## What it does
    Counts the distinct combinations of fetches, feeds and targets passed to `run()` on one
    session (leaving out runs after the graph grew, which are GL102's), per call path, and
    reports the session when one path (a line in a loop) ran more than `max-combinations`,
    naming the call site and the count. A test that evaluates a dozen different tensors once
    each, from its own lines, is not churn.

    ## Why is this bad?
    For every new combination the runtime prunes the graph to the ops it needs, builds an
    executor for that subgraph and caches it for the life of the session. The first run of each
    combination is slow, and the cache grows with every new one.

    ## Example
    ```python
    for name in layer_names:
        sess.run(activations[name], {x: batch})  # a new subgraph per name
    ```

    ## Use instead
    ```python
    values = sess.run(activations, {x: batch})  # one combination, fetched once
    ```
    or a fixed set of `sess.make_callable(...)` callables.
    """

    code = "GL302"
    repetition = True
    name = "fetch-churn"
    severity = Severity.WARNING
    summary = "one session run with many distinct fetch/feed combinations"
    fix = (
        "Fetch one fixed structure (e.g. a dict of all the tensors you need) per step, or "
        "prepare each combination once with sess.make_callable(...)."
    )
    options = {"max-combinations": 10}

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.sessions: dict[int, Counter] = defaultdict(Counter)
        self.frames: dict[tuple, object] = {}

    def graphlint_session_run(self, session_id, site, new_signature, ops_added):
        if not new_signature or ops_added or site is None:
            return
        # Counted per call path: one line of a loop that runs ever new combinations, not a
        # test that evaluates a dozen different tensors once each from its own lines.
        from graphlint.stacks import capture

        path = tuple(f[:2] for f in capture(0).frames) or (site[:2],)
        self.sessions[session_id][path] += 1
        self.frames.setdefault(path, site)

    def graphlint_session_released(self, session_id):
        self._judge(self.sessions.pop(session_id, None))

    def graphlint_run_finished(self):
        for session_id in list(self.sessions):
            self._judge(self.sessions.pop(session_id))

    def _judge(self, sites: Counter | None) -> None:
        if not sites:
            return
        (top, n), *_ = sites.most_common()
        if n <= self.config["max-combinations"]:
            return
        total = sum(sites.values())
        self.report(
            f"one session ran {n} distinct fetch/feed combinations"
            + (f" from this call ({total} in all)" if total > n else "")
            + ": each new one prunes and caches a new subgraph",
            self.frames[top],
        )


class SessionLeak(Rule):
    """Sessions opened and abandoned without `close()`.

    ## What it does
    Reports a session that the program dropped without closing while it went on running (found
    when the session is garbage-collected and the program then goes on using TensorFlow), and
    unclosed sessions piling up on one graph (more than `max-open-per-graph` at once). One
    session held until the program ends is fine: a global, or a local of `main()` collected as
    `main()` returns.

    ## Why is this bad?
    An open session holds its device memory, thread pools and the values of every variable.
    Relying on garbage collection to free them makes memory grow with each call that opened one,
    and a reference cycle can keep them alive for a long time.

    ## Example
    ```python
    def evaluate(x):
        sess = tf.compat.v1.Session()
        return sess.run(y, {inputs: x})  # the session is dropped, never closed
    ```

    ## Use instead
    ```python
    def evaluate(x):
        with tf.compat.v1.Session() as sess:
            return sess.run(y, {inputs: x})
    ```
    or one long-lived session closed at the end.
    """

    code = "GL303"
    name = "session-leak"
    severity = Severity.WARNING
    summary = "session dropped or piled up without close()"
    fix = (
        "Use `with tf.compat.v1.Session() as sess:` or call sess.close() when done; better, "
        "keep one session for the program's life."
    )
    options = {"max-open-per-graph": 2}

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.open: dict[int, dict[int, object]] = defaultdict(dict)
        self.piled: set[int] = set()
        # Unclosed sessions already collected, reported once the program shows it went on
        # (a later TensorFlow event): a session collected while the script's globals are torn
        # down, after its last statement, was merely open at the end.
        self.dropped: list = []
        # Sessions created while this rule watched: under the pytest plugin a session made by an
        # earlier test and dropped during this one is not this test's doing.
        self.mine: set[int] = set()

    def _went_on(self):
        dropped, self.dropped = self.dropped, []
        for site in dropped:
            self.report(
                "a session created here was dropped without close() while the program went on",
                site,
            )

    def graphlint_op_added(self):
        if self.dropped:
            self._went_on()

    def graphlint_session_run(self):
        if self.dropped:
            self._went_on()

    def graphlint_session_created(self, session_id, graph_id, site):
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

    def graphlint_session_closed(self, session_id, graph_id):
        self.open[graph_id].pop(session_id, None)

    def graphlint_session_released(self, session_id, graph_id, closed, created_site):
        self.open[graph_id].pop(session_id, None)
        if session_id in self.mine:
            self.mine.discard(session_id)
            if not closed and created_site is not None:
                self.dropped.append(created_site)

    def graphlint_graph_released(self, graph_id):
        self.open.pop(graph_id, None)
        self.piled.discard(graph_id)

    def graphlint_run_finished(self):
        self.dropped.clear()  # collected at the end: nothing ran after them


def _frame(path, line):
    from graphlint.stacks import Frame

    return Frame(path, line, "")
