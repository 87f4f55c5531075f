"""GL201 variable-renamed in a test: a variable name the code chose, taken twice in one graph.

`scale_variable()` names its variable `scale`; the test makes two in one graph, so the
second is silently named `scale_1`, and a name-based checkpoint holds another name than the
one the code wrote.
"""

import tensorflow as tf

tf1 = tf.compat.v1


def scale_variable(value):
    return tf1.Variable(value, name="scale")  # GL201


def test_two_scales():
    with tf.Graph().as_default():
        first = scale_variable(1.0)
        second = scale_variable(2.0)
        assert first.op.name == "scale"
        assert second.op.name == "scale_1"
