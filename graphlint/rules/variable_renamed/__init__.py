"""GL201 variable-renamed."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class VariableRenamed(Rule):
    """A variable asked for a name that was taken, and TensorFlow silently renamed it.

    ## What it does
    Checks for a variable created with an explicit name (`tf.Variable(..., name="w")`) that ended
    up as `w_1` because `w` already existed in the same graph and scope. Its Keras form (Keras 3
    and tf-keras): two layers of one model given the same `name=`.

    ## Why is this bad?
    The code believes it made `w`; `tf.compat.v1.train.Saver` and checkpoints see `w_1`. A
    restore then fills the wrong variable or fails with "not found in checkpoint", and the
    rename usually means the model was built twice into one graph. Two Keras layers of one name
    make a Functional or Sequential model that Keras refuses without naming either line, or a
    subclassed model whose weights get the same paths in checkpoints.

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

    ## Known exemptions
    At runtime, weights a Keras layer, metric or optimizer makes for itself (`add_weight`:
    `total`, `gamma`, `moving_mean`): nobody chose those names, and Keras keeps and saves them
    by object. Statically only the Keras form is found: names written in one Keras class's
    `__init__`/`build()` or in one `keras.Sequential([...])`; layers made in a loop and layers
    of separate functional models are left alone, and so is a `name=` given to a layer class of
    your own that never passes it to `super().__init__()` (Keras names each object uniquely).
    """

    code = "GL201"
    name = "variable-renamed"
    severity = Severity.WARNING
    summary = "a variable's explicit name was taken and TensorFlow renamed it"
    frameworks = ("tensorflow-v1", "keras", "tf-keras")
    fix = (
        "Build the variable once and reuse the object, or give each variable a unique name "
        "(for sharing, use tf.compat.v1.get_variable under a scope with "
        "reuse=tf.compat.v1.AUTO_REUSE)."
    )
    #: The fix of its Keras form (one name given to two layers).
    keras_fix = "Give each layer of a model its own name, or leave `name=` out and let Keras number them."
