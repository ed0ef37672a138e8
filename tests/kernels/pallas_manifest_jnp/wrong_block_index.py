"""Function-style Pallas kernel whose output index map swaps the grid axes: blocks land in the
wrong place.
Expect: builds=pass, correctness=fail, overall=reject
"""

import jax
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = 2 * x_ref[...] + y_ref[...]


def scaled_add(x, y):
    spec = pl.BlockSpec((8, 128), lambda i, j: (i, j))
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2, 2),
                          in_specs=[spec, spec], out_specs=pl.BlockSpec((8, 128), lambda i, j: (j, i)))(x, y)
