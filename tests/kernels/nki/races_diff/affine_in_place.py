"""Computes the differences in place in one SBUF tile, 128 columns per nl.affine_range iteration:
iteration j reads column 128*(j + 1), the first column iteration j + 1 overwrites. Run in order (as the
interpreter does) every read comes before the overwrite and the numbers are right; the compiler may
reorder or overlap affine iterations, so on hardware iteration j can read an already differenced value.

Expect: correctness=fail, overall=reject
NKI-defect: race
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
        buf[:, lo:lo + 128] = nl.subtract(buf[:, lo + 1:lo + 129], buf[:, lo:lo + 128])
    nl.store(out, value=buf[:, 0:cols - 1])
    return out


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return diff_kernel(x)
