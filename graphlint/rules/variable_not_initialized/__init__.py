"""GL204 variable-not-initialized."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class VariableNotInitialized(Rule):
    """A variable created after the initializer op was built.

    ## What it does
    Checks for variables created after `tf.compat.v1.global_variables_initializer()` (or another
    variables initializer) was built and covered by no later one — typically an optimizer's slots
    (`Adam`, `Adam_1`, `beta1_power`) made by `minimize()` after the initializer.

    ## Why is this bad?
    An initializer covers exactly the variables that existed when it was built. Running it does
    not initialize the later ones, and the first step that reads them fails with
    `FailedPreconditionError: Attempting to use uninitialized value ...` — far from the line
    that caused it.

    ## Example
    ```python
    init = tf.compat.v1.global_variables_initializer()
    train_op = tf.compat.v1.train.AdamOptimizer().minimize(loss)  # slots made after init
    sess.run(init)
    ```

    ## Use instead
    ```python
    train_op = tf.compat.v1.train.AdamOptimizer().minimize(loss)
    init = tf.compat.v1.global_variables_initializer()  # after the whole model
    sess.run(init)
    ```
    """

    code = "GL204"
    name = "variable-not-initialized"
    severity = Severity.ERROR
    frameworks = ("tensorflow-v1",)
    summary = "a variable was created after the initializer op was built"
    fix = (
        "Build the whole model, optimizer included, before "
        "tf.compat.v1.global_variables_initializer(); or initialize the new variables with "
        "tf.compat.v1.variables_initializer([...])."
    )
