"""GL501 function-retraced, JAX: a static argument that takes a new value per call.

`steps` is static (it sets the loop count), and every epoch passes a new value: each value is a
new trace and compile of `unroll`.
"""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="steps")
def unroll(x, steps):
    for _ in range(steps):
        x = jnp.tanh(x)
    return x


x = jnp.ones((4,))
for epoch in range(8):
    x = unroll(x, steps=epoch + 1)  # GL501
print(float(x.sum()))
