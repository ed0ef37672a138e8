"""Correct RMSNorm whose row loop is a Python range: the compiler turns it into nl.sequential_range,
so independent tiles are serialised. Correct, only a performance note.

Expect: builds=pass, correctness=pass
NKI-defect: none
"""

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
    g_tile = nl.load(g.reshape((1, dim))[nl.arange(1)[:, None], i_f]).broadcast_to((128, dim))
    for t in range(math.ceil(rows / 128)):
        r = t * 128 + i_p
        x_tile = nl.load(x[r, i_f], mask=(r < rows))
        ms = nl.mean(nl.square(x_tile), axis=[1])
        nl.store(out[r, i_f], value=nl.multiply(nl.multiply(x_tile, nl.rsqrt(ms + eps)), g_tile), mask=(r < rows))
    return out


class ModelNew(torch.nn.Module):
    def forward(self, x, g):
        return rmsnorm_kernel(x, g, 1e-6)
