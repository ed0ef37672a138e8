"""Correct differences: every nl.affine_range iteration reads the shared input tile and writes its own
result tile, so no iteration touches what another writes.

Expect: builds=pass, correctness=pass
NKI-defect: none
"""

import torch

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def diff_kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols - 1), dtype=x.dtype, buffer=nl.shared_hbm)
    assert rows == 128 and (cols - 1) % 128 == 0
    buf = nl.load(x)
    for j in nl.affine_range((cols - 1) // 128):
        lo = j * 128
        d = nl.subtract(buf[:, lo + 1:lo + 129], buf[:, lo:lo + 128])
        nl.store(out[:, lo:lo + 128], value=d)
    return out


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return diff_kernel(x)
