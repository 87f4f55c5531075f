"""A jitted loss over batches padded to one shape, with a traced (not static) step count.

Every call has the same shapes and dtypes, so `loss` is traced once; `lr` is a Python float,
which JAX traces as a weakly typed scalar: its value can change without a new trace.
"""

import jax
import jax.numpy as jnp


@jax.jit
def loss(w, x, mask, lr):
    return lr * jnp.sum(((x @ w) ** 2) * mask) / jnp.sum(mask)


w = jnp.ones((3,))
for n in range(1, 9):
    x = jnp.zeros((8, 3)).at[:n].set(1.0)  # padded to 8 rows
    mask = (jnp.arange(8) < n).astype(jnp.float32)
    print(n, float(loss(w, x, mask, 0.1 / n)))
