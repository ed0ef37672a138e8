"""Scratch-accumulator row sum whose reduction axis is marked "parallel": on a TPU that axis may be
split across cores or reordered, so the scratch is zeroed and flushed out of order. interpret=True
runs the grid in order on one core and is right; the TPU interpreter (2 cores, shuffled grid) is not.
Expect: builds=pass, correctness=fail, overall=reject
"""

import jax
import jax.numpy as jnp
import numpy as np
import torch
import torch.nn as nn
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BR, BC = 16, 256


def kernel(x_ref, o_ref, acc_ref):
    k = pl.program_id(1)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.sum(x_ref[...], axis=1, keepdims=True)

    @pl.when(k == pl.num_programs(1) - 1)
    def _():
        o_ref[...] = acc_ref[...]


def rowsum(x):
    rows, cols = x.shape
    if rows % BR or cols % BC:
        raise ValueError(f"shape {x.shape} is not a multiple of the ({BR}, {BC}) block")
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows, 1), x.dtype),
        grid=(rows // BR, cols // BC),
        in_specs=[pl.BlockSpec((BR, BC), lambda i, k: (i, k))],
        out_specs=pl.BlockSpec((BR, 1), lambda i, k: (i, 0)),
        scratch_shapes=[pltpu.VMEM((BR, 1), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")),
    )(x)


class ModelNew(nn.Module):
    def forward(self, x):
        out = rowsum(jnp.asarray(x.detach().numpy()))
        return torch.from_numpy(np.array(out))
