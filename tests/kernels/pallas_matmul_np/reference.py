"""A NumPy reference in the own manifest format: C = A @ B in float32 (NumPy computes in the inputs'
dtype, so the float64 judge runs it on float64 inputs)."""

import numpy as np


def inputs(seed, M, K, N):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((M, K), dtype=np.float32), rng.standard_normal((K, N), dtype=np.float32)]


def reference(a, b):
    return a @ b
