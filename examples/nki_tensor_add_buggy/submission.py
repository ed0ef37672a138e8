"""Buggy NKI tensor add launched as an SPMD grid (one program per 128-row tile, as in the NKI SPMD
tensor-addition tutorial): the grid rounds up to cover all 300 rows, but no mask stops the last
program's tile at row 300, so it loads (and stores) past the end of the tensors.
Expect: builds=fail, overall=reject
"""

import torch

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def add_tile_kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    i_f = nl.arange(a.shape[1])[None, :]
    a_tile = nl.load(a[i_p, i_f])
    b_tile = nl.load(b[i_p, i_f])
    nl.store(out[i_p, i_f], value=a_tile + b_tile)
    return out


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        grid = (a.shape[0] + 127) // 128
        return add_tile_kernel[grid](a, b)
