"""GL401 checkpoint-mismatch."""

from __future__ import annotations

from collections import defaultdict

from graphlint.findings import Severity
from graphlint.rules._base import Rule
from graphlint.rules._state import VariableSites, quoted
from graphlint.text import plural


class CheckpointMismatch(Rule):
    """`Saver.restore` into a graph holding variables the checkpoint does not have.

    ## What it does
    Before `tf.compat.v1.train.Saver.restore` runs, compares the variables the saver will
    restore with the variables stored in the checkpoint, and reports the ones missing from it
    (e.g. Adam slots, `beta1_power`) with the lines that created them. It reports this also
    when the restore then raises, before the exception propagates.

    ## Why is this bad?
    The restore fails with `NotFoundError: Key weight_def/weights/Adam_1 not found in
    checkpoint` — or, with a custom restore, silently leaves variables uninitialized. The usual
    cause is an optimizer (or a second copy of the model) built on the inference path: its
    slot variables exist in the graph but were never saved.

    ## Example
    ```python
    loss = build_model()
    train_op = tf.compat.v1.train.AdamOptimizer().minimize(loss)  # on the inference path
    tf.compat.v1.train.Saver().restore(sess, "model.ckpt")  # saved without Adam slots
    ```

    ## Use instead
    ```python
    loss = build_model()
    saver = tf.compat.v1.train.Saver(var_list=tf.compat.v1.trainable_variables())
    saver.restore(sess, "model.ckpt")
    ```
    or build the optimizer only in the training graph.
    """

    code = "GL401"
    name = "checkpoint-mismatch"
    severity = Severity.ERROR
    summary = "Saver.restore into a graph with variables the checkpoint lacks"
    fix = (
        "Restore only what the checkpoint holds: tf.compat.v1.train.Saver(var_list=[...]) "
        "(e.g. the model's trainable variables), or build the optimizer only in the training graph."
    )

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.sites = VariableSites()

    def graphlint_variable_created(self, graph_id, name, stack):
        self.sites.add(graph_id, name, stack)

    def graphlint_checkpoint_restore(self, graph_id, saver_names, checkpoint_names, save_path, site):
        stored = set(checkpoint_names)
        missing = [name for name in saver_names if name not in stored]
        if not missing:
            return
        by_site = defaultdict(list)
        for name in missing:
            by_site[self.sites.get(graph_id, name)].append(name)
        related = [
            (where, f"{quoted(names, 3)} created here")
            for where, names in by_site.items()
            if where is not None
        ]
        self.report(
            f"restore expects {plural(len(missing), 'variable')} that checkpoint "
            f"'{save_path}' does not hold: {quoted(missing, 8)}",
            site,
            related=related[:5],
        )

    def graphlint_graph_released(self, graph_id):
        self.sites.release(graph_id)
