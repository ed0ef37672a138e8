"""Row sum over a whole-array VMEM block whose grid has one step too many (rows // 8 + 1): the extra
step reads rows past the end with a dynamic slice. interpret=True clamps the slice and drops the
out-of-range output block, so the answer is right; on a TPU it is an out-of-bounds read, which the
TPU interpreter raises.
Expect: builds=pass, correctness=fail, overall=reject
"""

import jax
import jax.numpy as jnp
import torch
import torch.nn as nn
from jax.experimental import pallas as pl

BR = 8


def kernel(x_ref, o_ref):
    i = pl.program_id(0)
    rows = x_ref[pl.ds(i * BR, BR), :]
    o_ref[...] = jnp.sum(rows, axis=1, keepdims=True)


def rowsum(x):
    rows, cols = x.shape
    if rows % BR:
        raise ValueError(f"rows must be a multiple of {BR}, got {rows}")
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows, 1), x.dtype),
        grid=(rows // BR + 1,),
        in_specs=[pl.BlockSpec((rows, cols), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((BR, 1), lambda i: (i, 0)),
    )(x)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.from_dlpack(rowsum(jax.dlpack.from_dlpack(x.contiguous())))
