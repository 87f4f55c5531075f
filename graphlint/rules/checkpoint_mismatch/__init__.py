"""GL401 checkpoint-mismatch."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class CheckpointMismatch(Rule):
    """`Saver.restore` into a graph holding variables the checkpoint does not have.

    ## What it does
    Checks, before `tf.compat.v1.train.Saver.restore` runs, the variables the saver will
    restore against the checkpoint's, and reports the ones missing from it (Adam slots,
    `beta1_power`) with the lines that created them, also when the restore then raises.

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
    frameworks = ("tensorflow-v1",)
    summary = "Saver.restore into a graph with variables the checkpoint lacks"
    fix = (
        "Restore only what the checkpoint holds: tf.compat.v1.train.Saver(var_list=[...]) "
        "(e.g. the model's trainable variables), or build the optimizer only in the training graph."
    )
