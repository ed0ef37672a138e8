"""Correct row sums over an SPMD grid: program p owns rows 128p..128p+127 and sums their columns in
512-column blocks accumulated in an SBUF tile with nl.sequential_range; no two programs touch the same
output rows.

Expect: builds=pass, correctness=pass
NKI-defect: none
"""

import torch

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def rowsum_kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    assert rows == 128 * nl.num_programs(0) and cols % 512 == 0
    acc = nl.zeros((128, 1), nl.float32, buffer=nl.sbuf)
    for c in nl.sequential_range(cols // 512):
        part = nl.sum(nl.load(x[pid * 128:(pid + 1) * 128, c * 512:(c + 1) * 512]), axis=1, keepdims=True)
        acc[...] = nl.add(acc, part)
    nl.store(out[pid * 128:(pid + 1) * 128, :], value=acc)
    return out


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return rowsum_kernel[x.shape[0] // 128](x)
