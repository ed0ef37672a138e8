"""Splits the columns over an SPMD grid of 4 programs; every program adds its partial row sums into the
same output rows with nl.load + nl.add + nl.store (program 0 stores first). The interpreter runs the
programs one after another, so the sum comes out right; on hardware the programs run independently,
read the rows before another program's store lands, and lose its partial sums.

Expect: correctness=fail, overall=reject
NKI-defect: race
"""

import torch

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def rowsum_kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    width = cols // nl.num_programs(0)
    assert rows % 128 == 0 and cols % nl.num_programs(0) == 0
    for r in nl.affine_range(rows // 128):
        part = nl.sum(nl.load(x[r * 128:(r + 1) * 128, pid * width:(pid + 1) * width]), axis=1, keepdims=True)
        if pid == 0:
            nl.store(out[r * 128:(r + 1) * 128, :], value=part)
        else:
            total = nl.add(nl.load(out[r * 128:(r + 1) * 128, :]), part)
            nl.store(out[r * 128:(r + 1) * 128, :], value=total)
    return out


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return rowsum_kernel[4](x)
