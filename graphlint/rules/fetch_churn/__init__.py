"""GL302 fetch-churn."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules.fetch_churn.runtime import Runtime


class FetchChurn(Runtime):
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
    frameworks = ("tensorflow-v1",)
    summary = "one session run with many distinct fetch/feed combinations"
    fix = (
        "Fetch one fixed structure (e.g. a dict of all the tensors you need) per step, or "
        "prepare each combination once with sess.make_callable(...)."
    )
    options = {"max-combinations": 10}
