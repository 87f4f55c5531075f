"""GL502 function-recreated, JAX: `jax.jit` applied on every call.

`predict()` jits a new lambda each time it is called: every request makes a new jitted function
with an empty cache, traced and compiled again.
"""

import jax
import jax.numpy as jnp

weights = jnp.linspace(-1.0, 1.0, 4).reshape(4, 1)


def predict(x):
    fast = jax.jit(lambda v: jax.nn.relu(v @ weights))  # GL502
    return fast(x)


for request in range(3):
    batch = jnp.full((2, 4), float(request))
    print(request, predict(batch).ravel())
