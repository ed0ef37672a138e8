"""A JAX reference in the own manifest format: bf16 jax.Array inputs, out = 2 * x + y in bf16."""

import jax
import jax.numpy as jnp


def inputs(seed, rows, cols):
    kx, ky = jax.random.split(jax.random.key(seed))
    return [jax.random.normal(kx, (rows, cols), jnp.bfloat16), jax.random.normal(ky, (rows, cols), jnp.bfloat16)]


def reference(x, y):
    assert isinstance(x, jax.Array) and x.dtype == jnp.bfloat16, (type(x), x.dtype)
    return 2 * x + y
