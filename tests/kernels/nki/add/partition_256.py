"""Tiles of 256 rows: the partition dimension of an SBUF tile may not exceed 128 (TC#1). The real
compiler fails with "Size of partition dimension 256 exceeds architecture limitation of 128."

Expect: builds=fail, overall=reject
NKI-defect: partition_limit
"""

import torch

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def add_kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows, cols = a.shape
    i_p = nl.arange(256)[:, None]
    i_f = nl.arange(cols)[None, :]
    for t in nl.affine_range((rows + 255) // 256):
        r = t * 256 + i_p
        a_tile = nl.load(a[r, i_f], mask=(r < rows))
        b_tile = nl.load(b[r, i_f], mask=(r < rows))
        nl.store(out[r, i_f], value=nl.add(a_tile, b_tile, mask=(r < rows)), mask=(r < rows))
    return out


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return add_kernel(a, b)
