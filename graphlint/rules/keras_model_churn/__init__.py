"""GL503 keras-model-churn."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules.keras_model_churn.runtime import Runtime


class KerasModelChurn(Runtime):
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
    frameworks = ("keras",)
    options = {"max-per-site": 2}
