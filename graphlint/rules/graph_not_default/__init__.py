"""GL103 graph-not-default."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class GraphNotDefault(Rule):
    """`with tf.Graph():` without `.as_default()`.

    ## What it does
    Checks for a `with` statement entered on a `tf.Graph` object itself instead of on
    `graph.as_default()`. `graphlint check --fix` appends the `.as_default()`.

    ## Why is this bad?
    `tf.Graph.__enter__` does nothing in TensorFlow 2: the block raises no error, but every op
    built inside it still goes to the global default graph. The isolation the code seems to ask
    for never happens, so models pile up in one graph, names collide (`Variable ... already
    exists`) and the new graph stays empty.

    ## Example
    ```python
    with tf.Graph():
        x = tf.compat.v1.placeholder(tf.float32, [None, 4])
    ```

    ## Use instead
    ```python
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 4])
    ```

    ## Known exemptions
    Statically, `with g:` is reported (and fixed) only when every binding of `g` in the scope it
    resolves to (a function's local, an enclosing function's, the module's) is a `tf.Graph()`:
    a name also bound to something else (a file, a parameter, an `except ... as g`, a `case g`)
    is left alone.
    """

    code = "GL103"
    name = "graph-not-default"
    severity = Severity.ERROR
    frameworks = ("tensorflow-v1",)
    summary = "`with tf.Graph():` does not make the graph the default"
    fix = "Write `with tf.Graph().as_default():` (or `with graph.as_default():`)."
