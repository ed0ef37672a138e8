import math

import torch

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def rmsnorm_kernel(x, g, eps):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    rows, dim = x.shape
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(dim)[None, :]
    g_row = nl.load(g.reshape((1, dim))[nl.arange(1)[:, None], i_f])
    g_tile = g_row.broadcast_to((128, dim))
    for t in nl.affine_range(math.ceil(rows / 128)):
        r = t * 128 + i_p
        x_tile = nl.load(x[r, i_f], mask=(r < rows))
        ms = nl.mean(nl.square(x_tile), axis=[1])
        y = nl.multiply(nl.multiply(x_tile, nl.rsqrt(ms + eps)), g_tile)
        nl.store(out[r, i_f], value=y, mask=(r < rows))
    return out


class ModelNew(torch.nn.Module):
    def forward(self, x, g):
        return rmsnorm_kernel(x, g, 1e-6)
