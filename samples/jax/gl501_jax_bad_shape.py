"""GL501 function-retraced, JAX: a jitted function called with a new shape per batch.

The last batch of each epoch is shorter, and the batches grow: every new shape of `x` is a new
trace (and XLA compile) of `loss`.
"""

import jax
import jax.numpy as jnp


@jax.jit
def loss(w, x):
    return jnp.mean((x @ w) ** 2)


w = jnp.ones((3,))
for n in range(1, 9):
    x = jnp.ones((n, 3))
    print(n, float(loss(w, x)))  # GL501
