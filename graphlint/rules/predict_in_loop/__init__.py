"""GL504 predict-in-loop."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class PredictInLoop(Rule):
    """`model.predict` called again and again on small batches.

    ## What it does
    Checks for a line that calls `Model.predict` more than `max-calls` times on an input that fits
    in one batch. `graphlint check` reports the calls (and Keras 2's `predict_proba`) whose source
    shows a Keras model (of the file, another object or module), one sample (`x[None]`,
    `np.expand_dims(x, 0)`, a stored replay step, a list of inputs with one such) and a loop or a
    function that runs per call.

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

    ## Known exemptions
    Statically: `predict` on a batch, `model(x)`, a scikit-learn `predict`, a branch of a
    wrapper that only batch callers reach (`predict(rows, target=True)`), a loop that waits for
    `input()`, and a call under a graph's `as_default()` (TF1 Keras, where `model(x)` would build
    ops: `predict` is the way there).
    """

    code = "GL504"
    repetition = True
    name = "predict-in-loop"
    severity = Severity.WARNING
    summary = "`model.predict` called many times on small batches"
    frameworks = ("keras",)
    fix = (
        "Call the model directly, `model(x, training=False)` (or `model.predict_on_batch(x)`), "
        "or gather the inputs and make one batched `predict` call."
    )
    options = {"max-calls": 5}
