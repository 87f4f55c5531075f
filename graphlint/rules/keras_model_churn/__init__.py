"""GL503 keras-model-churn."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class KerasModelChurn(Rule):
    """Keras models built in a loop with no `clear_session()` in it.

    ## What it does
    Checks for a Keras model built in a `for`/`while` loop that never calls
    `keras.backend.clear_session()`: `keras.Sequential(...)`, `keras.Model(...)`, `clone_model`,
    a loader (`load_model`, `model_from_json`, `Model.from_config`), your own `keras.Model`
    subclass or your function or method that builds one; statically also a model built or
    loaded each time a web handler (`@app.route`, a Django view) or a per-call method
    (`predict`) runs. At runtime it reports a line that built more than `max-per-site` models with no
    `clear_session()` between them.

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

    ## Known exemptions
    A functional `Model(m.inputs[0], m.outputs[1])` over an existing model's tensors (a view:
    no new layers or weights), a model built under a first-time guard (`if model is None:`)
    or by a memoized function (`@functools.lru_cache`), models kept side by side (appended to
    a list, stored by key or on each pass's own object, returned: an ensemble; not one
    attribute replaced at each pass), and loops the
    source bounds to `max-per-site` passes (the folds of `np.array_split(x, k)` or of a
    scikit-learn splitter's `split()`, `KFold(n_splits=k)`, count as `k` passes). At runtime
    models count per call path: three built from three lines of a test through one line of a
    wrapper (a decorator's `return fn(*args)`) are three lines, one model each.
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
