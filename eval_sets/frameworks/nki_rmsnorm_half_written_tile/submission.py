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
    i_c = nl.arange(128)[None, :]
    g_tile = nl.load(g.reshape((1, dim))[nl.arange(1)[:, None], i_f]).broadcast_to((128, dim))
    for t in nl.affine_range(math.ceil(rows / 128)):
        r = t * 128 + i_p
        x_tile = nl.load(x[r, i_f], mask=(r < rows))
        scale = nl.rsqrt(nl.mean(nl.square(x_tile), axis=[1]) + eps)
        y = nl.ndarray((128, dim), dtype=x.dtype, buffer=nl.sbuf)
        for c in nl.affine_range(dim // 128 - 1):
            y[i_p, c * 128 + i_c] = nl.multiply(nl.multiply(x_tile[i_p, c * 128 + i_c], scale),
                                                g_tile[i_p, c * 128 + i_c])
        nl.store(out[r, i_f], value=y, mask=(r < rows))
    return out


class ModelNew(torch.nn.Module):
    def forward(self, x, g):
        return rmsnorm_kernel(x, g, 1e-6)
