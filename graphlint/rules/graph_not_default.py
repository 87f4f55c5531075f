"""GL103 graph-not-default."""

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class GraphNotDefault(Rule):
    """`with tf.Graph():` without `.as_default()`.

    ## What it does
    Flags a `with` statement entered on a `tf.Graph` object itself instead of on
    `graph.as_default()`.

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
    """

    code = "GL103"
    name = "graph-not-default"
    severity = Severity.ERROR
    summary = "`with tf.Graph():` does not make the graph the default"
    fix = "Write `with tf.Graph().as_default():` (or `with graph.as_default():`)."
    engines = ("runtime", "static")

    def check_module(self, module):
        """Static form: see :func:`graphlint.static.churn.graph_not_default`."""
        from graphlint.static.churn import graph_not_default
        from graphlint.static.hits import report_hits

        report_hits(self, module, graph_not_default(module, self.config))

    def graphlint_graph_entered(self, site):
        self.report(
            "`with tf.Graph():` does not make the graph the default: ops built in this block "
            "still go to the global default graph",
            site,
        )
