"""Buggy RMSNorm with NKI ISA instructions: the row loop runs rows // 128 times, so when the row count
is not a multiple of 128 (200 here) the last 72 rows of the output are never written.
Expect: builds=pass, correctness=fail, overall=reject
"""

import numpy as np
import torch

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def rmsnorm_kernel(x, g, eps):
    rows, dim = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(nl.tile_size.pmax)[:, None]
    i_f = nl.arange(dim)[None, :]
    weight = nl.load(g.reshape((1, dim))[nl.arange(1)[:, None], i_f]).broadcast_to((nl.tile_size.pmax, dim))
    for t in nl.affine_range(rows // nl.tile_size.pmax):
        r = t * nl.tile_size.pmax + i_p
        tile = nl.load(x[r, i_f])
        squares = nisa.activation(op=nl.square, data=tile, dtype=nl.float32)
        total = nisa.tensor_reduce(np.add, squares, axis=[1], keepdims=True, dtype=nl.float32)
        inv_rms = nl.rsqrt(nisa.tensor_scalar(total, np.multiply, 1.0 / dim, op1=np.add, operand1=eps))
        normed = nisa.tensor_scalar(tile, np.multiply, inv_rms)
        nl.store(out[r, i_f], value=nl.multiply(normed, weight))
    return out


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, g):
        return rmsnorm_kernel(x, g, 1e-6)
