"""GL203 reuse-missing-variable."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class ReuseMissingVariable(Rule):
    """Reuse requested for a variable that was never created.

    ## What it does
    Checks for a `get_variable` call under `reuse=True` for a name that does not exist in the
    graph (TensorFlow raises `Variable ... does not exist, or was not created with
    tf.get_variable()`), naming a close existing variable when there is one.

    ## Why is this bad?
    The scope name, the variable name or the build order differs from what the sharing code
    expects: usually a typo in the scope, a different name scope around the first build, or
    the "reuse" path running before the model was ever built.

    ## Example
    ```python
    with tf.compat.v1.variable_scope("model", reuse=True):
        w = tf.compat.v1.get_variable("weights", [4, 1])  # never created
    ```

    ## Use instead
    ```python
    with tf.compat.v1.variable_scope("model", reuse=tf.compat.v1.AUTO_REUSE):
        w = tf.compat.v1.get_variable("weights", [4, 1])  # created once, then shared
    ```
    """

    code = "GL203"
    name = "reuse-missing-variable"
    severity = Severity.ERROR
    frameworks = ("tensorflow-v1",)
    summary = "reuse requested for a variable never created"
    fix = (
        "Create the variable first (reuse off), or use reuse=tf.compat.v1.AUTO_REUSE; check "
        "the scope and variable names."
    )
