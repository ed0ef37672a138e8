"""Tensor addition as an NKI kernel, written after the NKI tensor-addition tutorial's structure: tiles
of 128 rows (the partition limit), with a mask for the last, partial tile.
Expect: builds=pass, correctness=pass
"""

import torch

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def add_kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows, cols = a.shape
    p = nl.tile_size.pmax
    i_p = nl.arange(p)[:, None]
    i_f = nl.arange(cols)[None, :]
    for t in nl.affine_range((rows + p - 1) // p):
        r = t * p + i_p
        a_tile = nl.load(a[r, i_f], mask=(r < rows))
        b_tile = nl.load(b[r, i_f], mask=(r < rows))
        c_tile = nl.add(a_tile, b_tile, mask=(r < rows))
        nl.store(out[r, i_f], value=c_tile, mask=(r < rows))
    return out


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return add_kernel(a, b)
