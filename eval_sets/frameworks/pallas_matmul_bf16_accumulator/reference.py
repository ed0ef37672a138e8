"""A JAX reference in the own manifest format: C = A @ B in float32 (K long enough that a correct
blocked kernel differs from XLA's order by more than the fp32 element-wise default tolerance)."""

import jax
import jax.numpy as jnp


def inputs(seed, M, K, N):
    ka, kb = jax.random.split(jax.random.key(seed))
    return [jax.random.normal(ka, (M, K), jnp.float32), jax.random.normal(kb, (K, N), jnp.float32)]


def reference(a, b):
    return a @ b
