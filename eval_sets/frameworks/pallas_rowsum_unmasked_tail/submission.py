import jax
import jax.numpy as jnp
import torch
import torch.nn as nn
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BR, BC = 8, 512


def kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.sum(x_ref[...], axis=1, keepdims=True)


def rowsum(x):
    rows, cols = x.shape
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows, 1), x.dtype),
        grid=(pl.cdiv(rows, BR), pl.cdiv(cols, BC)),
        in_specs=[pl.BlockSpec((BR, BC), lambda i, k: (i, k))],
        out_specs=pl.BlockSpec((BR, 1), lambda i, k: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),
    )(x)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.from_dlpack(rowsum(jax.dlpack.from_dlpack(x.contiguous())))
