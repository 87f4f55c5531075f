"""GL501 function-retraced, JAX: a hyperparameter passed as a Python number or an array, by turns.

`scale` comes from different places: a Python float, a float32 array, a Python int, an int32
array... JAX traces a Python scalar as a weakly typed value and an array by its dtype, so each
new kind of `scale` is a new trace of `step`.
"""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def step(x, scale):
    return x * scale


scales = [0.5, jnp.float32(0.5), 2, jnp.int32(2), np.float16(0.5), jnp.bfloat16(0.5)]
x = jnp.ones((4,))
for scale in scales:
    x = step(x, scale)  # GL501
print(float(x.sum()))
