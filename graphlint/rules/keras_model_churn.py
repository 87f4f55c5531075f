"""GL503 keras-model-churn."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule
from graphlint.static.tfapi import CLEAR_SESSION, is_keras_model

_KEEPS = frozenset({"append", "extend", "add", "insert", "appendleft"})


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
    name = "keras-model-churn"
    severity = Severity.WARNING
    summary = "Keras models built in a loop with no `clear_session()` in it"
    fix = (
        "Call tf.keras.backend.clear_session() at the start of each iteration, or build the "
        "model once before the loop and reset its weights."
    )
    engines = ("runtime", "static")
    options = {"max-per-site": 2}

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.sites: dict[tuple, list] = {}  # (path, line, session) -> [site, models, class]

    # -- runtime form ----------------------------------------------------------------------
    def graphlint_keras_model_built(self, class_name, site, session):
        if site is None:
            return
        entry = self.sites.setdefault((site.path, site.line, session), [site, 0, class_name])
        entry[1] += 1

    def graphlint_run_finished(self):
        limit = self.config["max-per-site"]
        for site, models, class_name in self.sites.values():
            if models > limit:
                self.report(
                    f"{models} Keras models (`{class_name}`) built at this line with no "
                    "`clear_session()` between them: Keras' global state keeps growing",
                    site,
                )
        self.sites.clear()

    # -- static form -----------------------------------------------------------------------

    def check_module(self, module) -> None:
        model_classes = {
            name for name, cls in module.classes.items() if any(is_keras_model(b) for b in cls.bases)
        }
        builders = {}
        for fn in module.functions:
            builds = next((c for c in fn.calls if _is_model(c, model_classes)), None)
            if builds is not None and not any(c.name == CLEAR_SESSION for c in fn.calls):
                builders[id(fn)] = builds
        for call in module.calls:
            loops = [loop for loop in call.loops if not loop.is_comprehension]
            if not loops or any(c.name == CLEAR_SESSION for loop in call.loops for c in loop.calls):
                continue
            if call.parent is not None and getattr(call.parent.func, "attr", None) in _KEEPS:
                continue  # models kept side by side: an ensemble, not churn
            if _is_model(call, model_classes):
                self.report(
                    "a new Keras model is built on every iteration of this loop, and nothing in "
                    "the loop calls `clear_session()`",
                    module.location(call.node),
                )
            elif call.target is not None and id(call.target) in builders:
                inner = builders[id(call.target)]
                self.report(
                    f"{call.target.display} builds a new Keras model on every iteration of this "
                    "loop, and nothing in the loop calls `clear_session()`",
                    module.location(call.node),
                    related=[(module.location(inner.node), "the model is built here")],
                )


def _is_model(call, model_classes) -> bool:
    if is_keras_model(call.name):
        return True
    return call.local_class is not None and call.local_class.name in model_classes
