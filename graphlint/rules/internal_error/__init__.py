"""GL000 internal-error."""

from graphlint.findings import INTERNAL_ERROR_CODE, INTERNAL_ERROR_FIX, INTERNAL_ERROR_NAME, Severity
from graphlint.rules._base import Rule


class InternalError(Rule):
    """A rule or probe of graphlint failed while watching your program.

    ## What it does
    Reports an exception raised inside a graphlint rule (built-in or plugin), once: the failing
    rule gets no further event; the program and every other rule carry on.

    ## Why is this bad?
    It is not a problem in your program: a rule could not judge it, so a finding may be
    missing. Please report it to the rule's authors with the message shown.

    ## Example
    ```
    GL000 rule GL999 failed in graphlint_op_added: KeyError: 'x'
    ```

    ## Use instead
    Nothing to change in your code. `--ignore GL999` silences the failing rule until it is fixed.
    """

    code = INTERNAL_ERROR_CODE
    name = INTERNAL_ERROR_NAME
    severity = Severity.ERROR
    summary = "a graphlint rule failed; the other rules carried on"
    fix = INTERNAL_ERROR_FIX
    engines = ("runtime", "static")
    frameworks = ()
