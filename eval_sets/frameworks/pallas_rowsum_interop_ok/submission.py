import os

import jax
import jax.numpy as jnp
import numpy as np
import torch
import torch.nn as nn
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

HERE = os.path.dirname(os.path.abspath(__file__))
OWN_FILES = sorted(n for n in os.listdir(HERE) if n.endswith(".py"))
with open(os.path.abspath(__file__)) as fh:
    SOURCE_LINES = len(fh.read().splitlines())

BR, BC = 8, 512


def rowsum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _init():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.sum(x_ref[...], axis=1, keepdims=True)


@jax.jit
def rowsum(x):
    rows, cols = x.shape
    return pl.pallas_call(
        rowsum_kernel,
        out_shape=jax.ShapeDtypeStruct((rows, 1), x.dtype),
        grid=(rows // BR, cols // BC),
        in_specs=[pl.BlockSpec((BR, BC), lambda i, k: (i, k))],
        out_specs=pl.BlockSpec((BR, 1), lambda i, k: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
    )(x)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = np.asarray(x.shape)
        if shape[0] % BR or shape[1] % BC:
            raise ValueError(f"rowsum needs rows % {BR} == 0 and cols % {BC} == 0, got {tuple(shape)}")
        out = rowsum(jax.dlpack.from_dlpack(x.contiguous()))
        scale = jnp.asarray(1.0, dtype=out.dtype)  # a constant in the output's own dtype: no promotion
        return torch.from_dlpack(out * scale)
