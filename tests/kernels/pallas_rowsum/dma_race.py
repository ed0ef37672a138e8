"""Row sum that copies its rows from HBM into VMEM with an asynchronous DMA and sums the buffer
before waiting for the copy: a DMA race. interpret=True performs the copy at once and hides it;
the TPU interpreter reports the race and the read sees uninitialised (NaN) memory.
Expect: builds=pass, correctness=fail, overall=reject
"""

import jax
import jax.numpy as jnp
import torch
import torch.nn as nn
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BR = 8


def kernel(x_hbm, o_ref, buf, sem):
    i = pl.program_id(0)
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(i * BR, BR)], buf, sem)
    copy.start()
    o_ref[...] = jnp.sum(buf[...], axis=1, keepdims=True)  # read before copy.wait()
    copy.wait()


def rowsum(x):
    rows, cols = x.shape
    if rows % BR:
        raise ValueError(f"rows must be a multiple of {BR}, got {rows}")
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows, 1), x.dtype),
        grid=(rows // BR,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((BR, 1), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((BR, cols), jnp.float32), pltpu.SemaphoreType.DMA],
    )(x)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.from_dlpack(rowsum(jax.dlpack.from_dlpack(x.contiguous())))
