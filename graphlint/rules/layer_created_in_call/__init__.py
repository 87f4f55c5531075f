"""GL505 layer-created-in-call."""

from __future__ import annotations

from graphlint.findings import Severity
from graphlint.rules._base import Rule


class LayerCreatedInCall(Rule):
    """A Keras layer or variable created inside `call()`, so every call gets fresh weights.

    ## What it does
    Checks for a layer (`Dense(...)`, your own layer class) or a variable (`add_weight`,
    `tf.Variable`, `keras.Variable`) created inside `call()` of a Keras layer or model: at
    runtime while the same layer object runs its second or later call, statically in the method
    `call` of a class deriving from a Keras `Layer` or `Model`. Only what creates state counts,
    and the message says which: a variable, a layer with weights, or a Keras 3 layer with a seed
    generator (`Dropout`, `GaussianNoise`).

    ## Why is this bad?
    A layer created in `call()` is a new layer with new random weights on every call: in eager
    mode two calls on the same input give different outputs, the optimizer never sees the
    weights (`fit` warns "The model does not have any trainable weights"), and inside
    `tf.function` the program later fails with "tf.function only supports singleton
    tf.Variables created on the first call" — far from the cause.

    ## Example
    ```python
    class Block(keras.layers.Layer):
        def call(self, x):
            return keras.layers.Dense(4)(x)  # a new Dense, new weights, every call
    ```

    ## Use instead
    ```python
    class Block(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = keras.layers.Dense(4)  # once

        def call(self, x):
            return self.dense(x)
    ```

    ## Known exemptions
    The first call, when Keras builds the layer (`build()`), may create; statically, a creation
    guarded by `if not hasattr(self, ...)`, `if not self.built` or `if self.x is None`. Layers
    that hold no variable lose nothing when made per call: activations (`LeakyReLU`,
    `Activation`; not `PReLU`), `Reshape`, `Flatten`, padding, cropping, up-sampling, pooling,
    merging layers, `Lambda`, a layer class of your own made only of those, and tf-keras'
    `Dropout` family (no seed variable there; Keras 3's, also through `tf.keras` from TF 2.16,
    fails under `tf.function`).
    """

    code = "GL505"
    name = "layer-created-in-call"
    severity = Severity.ERROR
    summary = "a Keras layer or variable created inside `call()`: fresh, untrained weights on every call"
    fix = (
        "Create the layer or variable once in `__init__` (or, for weights whose shape depends on the input, in "
        "`build()` with `self.add_weight`) and only use it in `call()`."
    )
    frameworks = ("keras", "tf-keras")
