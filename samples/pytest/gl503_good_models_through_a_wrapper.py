"""Three Keras models built from three lines, all through one wrapper line: three models.

`logged()` wraps the model builders as a decorator does (`return build(*args)`): every model
passes through that one line, but each is built once, from its own line of the test.
"""

import functools

import keras


def logged(build):
    @functools.wraps(build)
    def wrapper(*args):
        return build(*args)

    return wrapper


@logged
def dense_model(units):
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(units)])


def test_three_models():
    small = dense_model(1)
    medium = dense_model(2)
    large = dense_model(4)
    assert [m.output_shape[-1] for m in (small, medium, large)] == [1, 2, 4]
