"""GL504 predict-in-loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphlint.findings import Severity
from graphlint.rules._base import Rule
from graphlint.text import plural

if TYPE_CHECKING:  # the runtime engine's: `graphlint check` never imports it
    from graphlint.stacks import Frame

_DEFAULT_BATCH = 32  # Keras' predict batch size when none is given


@dataclass(slots=True)
class _Site:
    """The small-batch ``predict`` calls at one line."""

    site: Frame  # the line
    calls: int = 0
    rows: int = 0  # the largest batch among them


class PredictInLoop(Rule):
    """`model.predict` called again and again on small batches.

    ## What it does
    Counts `Model.predict` calls per line whose input fits in one batch; when one line makes
    more than `max-calls` of them, reports the line and the count. `graphlint check` reports
    the calls whose source shows all of it: a Keras model made in the file, one sample
    (`x[None]`, `np.expand_dims(x, 0)`, `np.reshape(x, [1, ...])`), in a loop or a function
    that runs per call.

    ## Why is this bad?
    `predict` is built for large inputs: every call wraps its input in a `tf.data` pipeline,
    sets up callbacks and a progress bar, and may trace its predict function again. For one
    small batch that overhead is many times the cost of the model itself, so a loop of
    `predict` calls is slow.

    ## Example
    ```python
    for frame in frames:
        scores = model.predict(frame[None], verbose=0)
    ```

    ## Use instead
    ```python
    scores = model.predict(np.stack(frames), verbose=0)  # one batched call
    # or, when each result is needed at once:
    for frame in frames:
        scores = model(frame[None], training=False)
    ```
    """

    code = "GL504"
    repetition = True
    name = "predict-in-loop"
    severity = Severity.WARNING
    summary = "`model.predict` called many times on small batches"
    engines = ("runtime", "static")
    frameworks = ("keras",)
    fix = (
        "Call the model directly, `model(x, training=False)` (or `model.predict_on_batch(x)`), "
        "or gather the inputs and make one batched `predict` call."
    )
    options = {"max-calls": 5}

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.sites: dict[tuple, _Site] = {}  # (path, line) -> its small-batch calls

    def graphlint_predict_called(self, rows, batch_size, site):
        if site is None or rows is None or rows > (batch_size or _DEFAULT_BATCH):
            return
        entry = self.sites.get(site[:2])
        if entry is None:
            entry = self.sites[site[:2]] = _Site(site)
        entry.calls += 1
        entry.rows = max(entry.rows, rows)

    def check_module(self, module) -> None:
        """Static form: see :func:`graphlint.static.predicts.predict_in_loop`."""
        from graphlint.static.hits import report_hits
        from graphlint.static.predicts import predict_in_loop

        report_hits(self, module, predict_in_loop(module, self.config))

    def graphlint_run_finished(self):
        limit = self.config["max-calls"]
        for entry in self.sites.values():
            if entry.calls > limit:
                self.report(
                    f"`predict` called {entry.calls} times at this line on small batches (at most "
                    f"{plural(entry.rows, 'row')} each): each call sets up a data pipeline and may retrace",
                    entry.site,
                )
        self.sites.clear()
