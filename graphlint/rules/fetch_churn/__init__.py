"""GL302 fetch-churn."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class FetchChurn(Rule):
    """One session run with many different fetch/feed combinations.

    ## What it does
    Checks for a call path (a line in a loop) that runs one session with more than
    `max-combinations` distinct combinations of fetches, feeds and targets, naming the call
    site and the count.

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

    ## Known exemptions
    Runs after the graph grew (those are GL102's), and a test that evaluates a dozen different
    tensors once each from its own lines.
    """

    code = "GL302"
    repetition = True
    name = "fetch-churn"
    severity = Severity.WARNING
    frameworks = ("tensorflow-v1",)
    summary = "one session run with many distinct fetch/feed combinations"
    fix = (
        "Fetch one fixed structure (e.g. a dict of all the tensors you need) per step, or "
        "prepare each combination once with sess.make_callable(...)."
    )
    options = {"max-combinations": 10}
