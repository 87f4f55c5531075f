"""GL001 syntax-error."""

from graphlint.findings import SYNTAX_ERROR_CODE, SYNTAX_ERROR_FIX, SYNTAX_ERROR_NAME, Severity
from graphlint.rules._base import Rule


class SyntaxErrorRule(Rule):
    """A file `graphlint check` cannot read or parse.

    ## What it does
    Reports, once per file, why the static engine could not check it: a syntax error (with its
    line and column), text that is not in its declared encoding, a binary file, a file over the
    size limit (10 MiB) or one nested too deeply for Python's parser. The other files are still
    checked; in a notebook, so are the other cells (one GL001 per cell).

    ## Why is this bad?
    Nothing in a file that cannot be parsed is checked, so its anti-patterns go unreported; and
    Python itself will refuse to import it.

    ## Example
    ```python
    def forecast(x)
        return model(x)
    ```

    ## Use instead
    ```python
    def forecast(x):
        return model(x)
    ```
    or exclude generated and non-Python files with `[tool.graphlint] exclude`.

    ## Known exemptions
    An empty file is valid Python and is not reported. A notebook whose kernel is Python 2 is one
    GL001 and nothing else: its other cells are Python 2 too.
    """

    code = SYNTAX_ERROR_CODE
    name = SYNTAX_ERROR_NAME
    severity = Severity.ERROR
    summary = "a file that cannot be read or parsed as Python"
    fix = SYNTAX_ERROR_FIX
    engines = ("static",)
    frameworks = ()
