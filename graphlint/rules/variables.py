"""GL201 variable-renamed, GL202 variable-exists, GL203 reuse-missing-variable."""

from __future__ import annotations

import re

from graphlint.findings import Severity
from graphlint.rules._base import Rule
from graphlint.rules._state import VariableSites, two_sites

_DEFAULT_NAMES = {None, "", "Variable"}
_SUFFIX = re.compile(r"^(?P<base>.+)_(?P<n>\d+)$")


# TensorFlow's Trackable API, through which Keras' add_weight() makes every weight it tracks
_TRACKED_BY_OBJECT = "_add_variable_with_custom_getter"

_KERAS_NAME_FIX = "Give each layer of a model its own name, or leave `name=` out and let Keras number them."


class VariableRenamed(Rule):
    """A variable asked for a name that was taken, and TensorFlow silently renamed it.

    ## What it does
    Flags a `tf.Variable(..., name="w")` (or any variable with an explicit name) that ended up
    as `w_1` because a variable named `w` already existed in the same graph and scope.

    Its Keras form (Keras 3 and tf-keras): two layers of one model created with the same
    `name=` — a Functional or Sequential model that Keras then refuses without naming either
    line, or a subclassed model that keeps both with clashing weight paths — with both creating
    lines; at runtime, and statically for names written in one Keras class's `__init__`/`build()`
    or one `keras.Sequential([...])`.

    ## Why is this bad?
    The code believes it made `w`; `tf.compat.v1.train.Saver` and checkpoints see `w_1`. A
    restore then fills the wrong variable or fails with "not found in checkpoint", and the
    rename usually means the model was built twice into one graph.

    ## Example
    ```python
    def build():
        return tf.compat.v1.Variable(tf.zeros([4]), name="w")

    a = build()
    b = build()  # named "w_1"
    ```

    ## Use instead
    ```python
    w = tf.compat.v1.Variable(tf.zeros([4]), name="w")  # build once, pass it around
    a = b = w
    ```
    """

    code = "GL201"
    name = "variable-renamed"
    severity = Severity.WARNING
    summary = "a variable's explicit name was taken and TensorFlow renamed it"
    frameworks = ("tensorflow", "keras", "tf-keras")
    fix = (
        "Build the variable once and reuse the object, or give each variable a unique name "
        "(for sharing, use tf.compat.v1.get_variable under a scope with "
        "reuse=tf.compat.v1.AUTO_REUSE)."
    )
    engines = ("runtime", "static")

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.sites = VariableSites()

    def graphlint_variable_created(self, graph_id, name, requested_name, site, stack):
        self.sites.add(graph_id, name, stack)
        if requested_name in _DEFAULT_NAMES:
            return
        wanted = str(requested_name).rstrip("/").rsplit("/", 1)[-1]
        prefix, _, got = name.rpartition("/")
        match = _SUFFIX.match(got)
        if got == wanted or not match or match.group("base") != wanted:
            return
        from graphlint.stacks import passes_through

        if passes_through(_TRACKED_BY_OBJECT):
            # A weight a Keras layer, metric or optimizer made for itself (`add_weight`:
            # 'total', 'gamma', 'moving_mean'): nobody chose that name, and the object that
            # made it keeps the variable and saves it by object, not by its graph name.
            return
        original = f"{prefix}/{wanted}" if prefix else wanted
        self.report(
            f"variable '{original}' was silently renamed to '{name}': the name was already "
            "taken in this graph",
            site,
            related=two_sites(
                self.sites.stack(graph_id, original),
                stack,
                f"'{original}' was created here",
                f"'{name}' was created here",
            ),
        )

    def graphlint_graph_released(self, graph_id):
        self.sites.release(graph_id)

    def graphlint_keras_layer_name_reused(self, name, first_site, site, rejected):
        """The Keras form: two layers of one model given the same ``name=``."""
        consequence = (
            "Keras refuses the model with a ValueError that names neither line"
            if rejected
            else "Keras keeps both, and their weights get the same paths in checkpoints and saved models"
        )
        self.report(
            f"layer name '{name}' is given to two layers of one model: {consequence}",
            site,
            related=[(first_site, f"the first layer named '{name}' is created here")],
            fix=_KERAS_NAME_FIX,
        )

    def check_module(self, module) -> None:
        """Static form (Keras only): see :func:`graphlint.static.keras_layers.duplicate_layer_names`."""
        from graphlint.static.hits import report_hits
        from graphlint.static.keras_layers import duplicate_layer_names

        report_hits(self, module, duplicate_layer_names(module), fix=_KERAS_NAME_FIX)


class VariableExists(Rule):
    """`get_variable` for a name that already exists, without reuse.

    ## What it does
    Reports every `tf.compat.v1.get_variable` call that TensorFlow refused with `Variable ...
    already exists, disallowed` — also when the program catches and swallows the `ValueError`
    — with both the refused call and the site that first created the variable.

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
    """

    code = "GL202"
    name = "variable-exists"
    severity = Severity.ERROR
    summary = "get_variable for an existing name without reuse"
    fix = (
        "Build the model once (e.g. in __init__) and reuse it; if sharing is intended, open "
        "the scope with reuse=tf.compat.v1.AUTO_REUSE."
    )
    engines = ("runtime", "static")

    def check_module(self, module):
        """Static forms: get_variable whose "already exists" error is caught; one full name
        created twice on one path; and get_variable in a function that rebuilds its model."""
        from graphlint.static.hits import report_hits
        from graphlint.static.variables import variable_exists

        report_hits(self, module, variable_exists(module))

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.sites = VariableSites()

    def graphlint_variable_created(self, graph_id, name, stack):
        self.sites.add(graph_id, name, stack)

    def graphlint_variable_refused(self, graph_id, name, reason, site, stack):
        if reason != "exists":
            return
        self.report(
            f"variable '{name}' already exists and reuse is off: this code builds it a second "
            "time into the same graph",
            site,
            related=two_sites(
                self.sites.stack(graph_id, name),
                stack,
                f"'{name}' was first created here",
                "the second build was asked for here",
            ),
        )

    def graphlint_graph_released(self, graph_id):
        self.sites.release(graph_id)


class ReuseMissingVariable(Rule):
    """Reuse requested for a variable that was never created.

    ## What it does
    Reports a `get_variable` call under `reuse=True` for a name that does not exist in the
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
    summary = "reuse requested for a variable never created"
    fix = (
        "Create the variable first (reuse off), or use reuse=tf.compat.v1.AUTO_REUSE; check "
        "the scope and variable names."
    )

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.sites = VariableSites()

    def graphlint_variable_created(self, graph_id, name, stack):
        self.sites.add(graph_id, name, stack)

    def graphlint_variable_refused(self, graph_id, name, reason, site):
        if reason != "missing":
            return
        import difflib

        close = difflib.get_close_matches(name, self.sites.names(graph_id), n=1, cutoff=0.6)
        related = [(self.sites.get(graph_id, close[0]), f"did you mean '{close[0]}', created here?")] if close else []
        self.report(
            f"reuse was requested for variable '{name}', but no variable of that name was ever "
            "created in this graph",
            site,
            related=related,
        )

    def graphlint_graph_released(self, graph_id):
        self.sites.release(graph_id)
