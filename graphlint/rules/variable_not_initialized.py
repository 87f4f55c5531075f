"""GL204 variable-not-initialized."""

from __future__ import annotations

from collections import defaultdict

from graphlint.findings import Severity
from graphlint.rules._base import Rule
from graphlint.rules._state import PerGraph, quoted
from graphlint.text import plural


class _Initialization:
    def __init__(self):
        self.created: list[tuple[str, object]] = []  # (name, site) in creation order
        self.first_init = None  # (index into created, site)
        self.covered: set[str] = set()


class VariableNotInitialized(Rule):
    """A variable created after the initializer op was built.

    ## What it does
    Reports variables created after `tf.compat.v1.global_variables_initializer()` (or another
    variables initializer) was built and never covered by a later initializer — typically an
    optimizer's slots (`Adam`, `Adam_1`, `beta1_power`) created by `minimize()` after the
    initializer — with the variables' site and the initializer's.

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
    summary = "a variable was created after the initializer op was built"
    fix = (
        "Build the whole model, optimizer included, before "
        "tf.compat.v1.global_variables_initializer(); or initialize the new variables with "
        "tf.compat.v1.variables_initializer([...])."
    )

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.graphs: PerGraph[_Initialization] = PerGraph(_Initialization)

    def graphlint_graph_created(self, graph_id, kind):
        if kind != "graph":
            self.graphs.pop(graph_id)

    def graphlint_variable_created(self, graph_id, name, site):
        self.graphs[graph_id].created.append((name, site))

    def graphlint_initializer_built(self, graph_id, variables, site):
        state = self.graphs[graph_id]
        if state.first_init is None:
            state.first_init = (len(state.created), site)
        state.covered.update(variables)

    def graphlint_graph_released(self, graph_id):
        self._judge(self.graphs.pop(graph_id))

    def graphlint_run_finished(self):
        for graph_id, state in self.graphs.items():
            self._judge(state)
            self.graphs.pop(graph_id)

    def _judge(self, state: _Initialization | None) -> None:
        if state is None or state.first_init is None:
            return
        start, init_site = state.first_init
        missing = defaultdict(list)
        for name, site in state.created[start:]:
            if name not in state.covered and site is not None:
                missing[site].append(name)
        for site, names in missing.items():
            self.report(
                f"{plural(len(names), 'variable')} created after the initializer was built "
                f"will never be initialized: {quoted(names)}",
                site,
                related=[(init_site, "the initializer was built here, before them")],
            )
