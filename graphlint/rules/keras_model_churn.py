"""GL503 keras-model-churn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphlint.findings import Severity
from graphlint.rules._base import Rule

if TYPE_CHECKING:  # the runtime engine's: `graphlint check` never imports it
    from graphlint.stacks import Frame


@dataclass(slots=True)
class _Site:
    """The Keras models built at one line in one Keras session."""

    site: Frame  # the line
    class_name: str  # the first model's class
    models: int = 0


class KerasModelChurn(Rule):
    """Keras models built in a loop with no `clear_session()` in it.

    ## What it does
    Flags `keras.Sequential(...)`, `keras.Model(...)`, `keras.models.clone_model(...)`, an
    instance of your own `keras.Model` subclass, or a call of your own function that builds one,
    inside a `for`/`while` loop that never calls `keras.backend.clear_session()`. Models kept in
    a list (an ensemble) are not reported. At runtime (`graphlint run`), it reports a line that
    built more than `max-per-site` Keras models (Keras 3) with no `clear_session()` between
    them, with the count.

    ## Why is this bad?
    Keras keeps global state for every model built: layer-name counters, and in graph mode the
    ops of every model in one global graph. A hyperparameter search or a cross-validation loop
    that builds a fresh model per iteration grows memory and slows down with every iteration.

    ## Example
    ```python
    for units in (8, 16, 32):
        model = tf.keras.Sequential([tf.keras.layers.Dense(units)])
        model.compile("adam", "mse")
        model.fit(x, y, verbose=0)
    ```

    ## Use instead
    ```python
    for units in (8, 16, 32):
        tf.keras.backend.clear_session()  # drop the previous model's state
        model = tf.keras.Sequential([tf.keras.layers.Dense(units)])
        model.compile("adam", "mse")
        model.fit(x, y, verbose=0)
    ```
    """

    code = "GL503"
    repetition = True
    name = "keras-model-churn"
    severity = Severity.WARNING
    summary = "Keras models built in a loop with no `clear_session()` in it"
    fix = (
        "Call tf.keras.backend.clear_session() at the start of each iteration, or build the "
        "model once before the loop and reset its weights."
    )
    engines = ("runtime", "static")
    frameworks = ("keras",)
    options = {"max-per-site": 2}

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.sites: dict[tuple, _Site] = {}  # (call path, session) -> the models built there

    # -- runtime form ----------------------------------------------------------------------
    def graphlint_keras_model_built(self, class_name, site, session):
        if site is None:
            return
        from graphlint.stacks import capture

        # The same line reached the same way: three models built from three lines of a test
        # all pass through one line of a wrapper (a decorator's `return fn(*args)`).
        key = (tuple(frame[:2] for frame in capture(0).frames), session)
        entry = self.sites.get(key)
        if entry is None:
            entry = self.sites[key] = _Site(site, class_name)
        entry.models += 1

    def graphlint_run_finished(self):
        limit = self.config["max-per-site"]
        for entry in self.sites.values():
            if entry.models > limit:
                self.report(
                    f"{entry.models} Keras models (`{entry.class_name}`) built at this line with no "
                    "`clear_session()` between them: Keras' global state keeps growing",
                    entry.site,
                )
        self.sites.clear()

    # -- static form -----------------------------------------------------------------------
    def check_module(self, module) -> None:
        """Static form: see :func:`graphlint.static.churn.keras_model_churn`."""
        from graphlint.static.churn import keras_model_churn
        from graphlint.static.hits import report_hits

        report_hits(self, module, keras_model_churn(module, self.config))
