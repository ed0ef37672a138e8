"""Row sum in Pallas for TPU (the same kernel as examples/rowsum_pallas): (8, 512) blocks, the column
axis is the reduction axis marked "arbitrary" (sequential), the output block is zeroed on its first
visit and accumulated in place, in float32 whatever the input's dtype, cast once at the end; torch and JAX exchange tensors through DLPack; shapes that are not
block multiples are rejected with a clear error.
Expect: builds=pass, correctness=pass
"""

import jax
import jax.numpy as jnp
import torch
import torch.nn as nn
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BLOCK_ROWS = 8
BLOCK_COLS = 512


def rowsum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _init():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.sum(x_ref[...].astype(jnp.float32), axis=1, keepdims=True)


@jax.jit
def rowsum(x: jax.Array) -> jax.Array:
    rows, cols = x.shape
    if rows % BLOCK_ROWS or cols % BLOCK_COLS:
        raise ValueError(f"rowsum needs rows % {BLOCK_ROWS} == 0 and cols % {BLOCK_COLS} == 0, got {x.shape}")
    return pl.pallas_call(
        rowsum_kernel,
        out_shape=jax.ShapeDtypeStruct((rows, 1), jnp.float32),
        grid=(rows // BLOCK_ROWS, cols // BLOCK_COLS),
        in_specs=[pl.BlockSpec((BLOCK_ROWS, BLOCK_COLS), lambda i, k: (i, k))],
        out_specs=pl.BlockSpec((BLOCK_ROWS, 1), lambda i, k: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
    )(x).astype(x.dtype)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = rowsum(jax.dlpack.from_dlpack(x.contiguous()))
        return torch.from_dlpack(out)
