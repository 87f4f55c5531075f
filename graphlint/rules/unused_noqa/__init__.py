"""GL002 unused-noqa."""

from graphlint.findings import Severity
from graphlint.rules._base import Rule
from graphlint.suppression import UNUSED_NOQA_CODE, UNUSED_NOQA_FIX, UNUSED_NOQA_NAME


class UnusedNoqa(Rule):
    """A `# noqa` directive that silences nothing (off by default, as ruff's RUF100).

    ## What it does
    Reports a `# noqa` comment (or a `# graphlint: noqa` line) that silenced no finding of this
    run, and the codes of a `# noqa: GL101, GL301` that silenced none, at the directive. It is
    off unless selected: `--extend-select GL002` (or `extend-select = ["GL002"]`). Every rule
    that is not selected counts as silent, so run it with your usual selection plus GL002.

    ## Why is this bad?
    A directive left behind after the code was fixed hides the next real finding on that line.

    ## Example
    ```python
    with g.as_default():  # noqa: GL103
        build()
    ```

    ## Use instead
    ```python
    with g.as_default():
        build()
    ```
    """

    code = UNUSED_NOQA_CODE
    name = UNUSED_NOQA_NAME
    severity = Severity.WARNING
    summary = "a `# noqa` directive that silences nothing (off by default)"
    fix = UNUSED_NOQA_FIX
    engines = ("static",)
    frameworks = ()
