"""GL302's runtime form: the fetch and feed combinations each line runs a session with."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from graphlint.rules.fetch_churn import FetchChurn

if TYPE_CHECKING:
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame

    #: the user's frames (path, line) that led to a run, outermost first
    _Path = tuple[tuple[str, int], ...]


class Runtime(FetchChurn):
    """FetchChurn at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.sessions: dict[int, Counter[_Path]] = defaultdict(Counter)
        self.frames: dict[_Path, Frame] = {}  # call path -> its innermost site

    def graphlint_session_run(self, session_id: int, site: Frame | None, new_signature: bool, ops_added: int) -> None:
        if not new_signature or ops_added or site is None:
            return
        # Counted per call path: one line of a loop that runs ever new combinations, not a
        # test that evaluates a dozen different tensors once each from its own lines.
        from graphlint.stacks import capture

        path = tuple(f[:2] for f in capture(0).frames) or (site[:2],)
        self.sessions[session_id][path] += 1
        self.frames.setdefault(path, site)

    def graphlint_session_released(self, session_id: int) -> None:
        self._judge(self.sessions.pop(session_id, None))

    def graphlint_run_finished(self) -> None:
        for session_id in list(self.sessions):
            self._judge(self.sessions.pop(session_id))

    def _judge(self, sites: Counter[_Path] | None) -> None:
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

