"""Correct in-place differences: the same in-place update as an affine loop would race on, but in an
nl.sequential_range loop, which the compiler runs in order.

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
    for j in nl.sequential_range((cols - 1) // 128):
        lo = j * 128
        buf[:, lo:lo + 128] = nl.subtract(buf[:, lo + 1:lo + 129], buf[:, lo:lo + 128])
    nl.store(out, value=buf[:, 0:cols - 1])
    return out


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return diff_kernel(x)
