import jax
import jax.numpy as jnp
import torch
import torch.nn as nn
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BR = 8


def softmax_kernel(x_ref, o_ref):
    x = x_ref[...]
    e = jnp.exp(x)
    o_ref[...] = e / jnp.sum(e, axis=-1, keepdims=True)


@jax.jit
def softmax(x):
    rows, cols = x.shape
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, BR),),
        in_specs=[pl.BlockSpec((BR, cols), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((BR, cols), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    )(x)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.from_dlpack(softmax(jax.dlpack.from_dlpack(x.contiguous())))
