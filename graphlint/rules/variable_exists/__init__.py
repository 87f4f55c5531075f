"""GL202 variable-exists."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class VariableExists(Rule):
    """`get_variable` for a name that already exists, without reuse.

    ## What it does
    Checks for `tf.compat.v1.get_variable` calls that TensorFlow refuses with `Variable ...
    already exists, disallowed`, also when the program catches and swallows the `ValueError`,
    naming the refused call and the site that first created the variable.

    ## Why is this bad?
    It almost always means the model is being built a second time into the same graph (a model
    built inside `forecast()` or `__call__`). Catching the error, or setting `reuse=True` to
    silence it, keeps the duplicated graph and moves the failure to a checkpoint restore
    later on.

    ## Example
    ```python
    def forecast(x):
        with tf.compat.v1.variable_scope("weight_def"):
            w = tf.compat.v1.get_variable("weights", [4, 1])
        ...

    forecast(a)
    forecast(b)  # ValueError: Variable weight_def/weights already exists
    ```

    ## Use instead
    ```python
    class Forecaster:
        def __init__(self):  # build once
            with tf.compat.v1.variable_scope("weight_def"):
                self.w = tf.compat.v1.get_variable("weights", [4, 1])
    ```
    If the variable is meant to be shared, say so:
    `tf.compat.v1.variable_scope("weight_def", reuse=tf.compat.v1.AUTO_REUSE)`.

    ## Known exemptions
    Statically, a call is reported when the source shows the clash: a `try` whose `except`
    swallows the "already exists" error, one literal full name created twice on one path, or a
    function that rebuilds its model (GL101); calls under a reusing scope or after
    `reuse_variables()` are not.
    """

    code = "GL202"
    name = "variable-exists"
    severity = Severity.ERROR
    frameworks = ("tensorflow-v1",)
    summary = "get_variable for an existing name without reuse"
    fix = (
        "Build the model once (e.g. in __init__) and reuse it; if sharing is intended, open "
        "the scope with reuse=tf.compat.v1.AUTO_REUSE."
    )
