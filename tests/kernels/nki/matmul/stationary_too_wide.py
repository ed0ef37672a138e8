"""Computes C^T = B^T A^T with B as the stationary operand: its free size (N = 512) exceeds the
Tensor Engine's 128 columns (gemm_stationary_fmax).

Expect: builds=fail, overall=reject
NKI-defect: matmul_tile_limit
"""

import torch

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def matmul_kernel(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    outT = nl.ndarray((N, M), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    assert K % 128 == 0
    parts = []
    for k in nl.static_range(K // 128):
        a_t = nl.load(lhsT[k * 128:(k + 1) * 128, 0:M])
        b_t = nl.load(rhs[k * 128:(k + 1) * 128, 0:N])
        parts.append(nl.copy(nisa.nc_matmul(b_t, a_t)))
    total = parts[0]
    for p in parts[1:]:
        total = nl.add(total, p)
    nl.store(outT, value=nl.copy(total, dtype=outT.dtype))
    return outT


class ModelNew(torch.nn.Module):
    def forward(self, A, B):
        return matmul_kernel(A.T, B).T
