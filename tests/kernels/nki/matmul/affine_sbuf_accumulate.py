"""Accumulates partial products in an SBUF tile with `acc[...] = nl.add(acc, part)` inside an
nl.affine_range loop: every iteration writes the same elements of `acc` and reads what the previous
one wrote. The compiler rejects such output dependencies in affine loops (it needs
nl.sequential_range, or `+=` into PSUM); a plain sequential simulation computes the right numbers.

Expect: builds=fail, overall=reject
NKI-defect: affine_output_dependency
"""

import torch

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def matmul_kernel(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    assert K % 128 == 0 and M == 128 and N == 512
    acc = nl.zeros((M, N), nl.float32, buffer=nl.sbuf)
    for k in nl.affine_range(K // 128):
        a_t = nl.load(lhsT[k * 128:(k + 1) * 128, 0:M])
        b_t = nl.load(rhs[k * 128:(k + 1) * 128, 0:N])
        part = nl.copy(nl.matmul(a_t, b_t, transpose_x=True))
        acc[...] = nl.add(acc, part)
    nl.store(out, value=nl.copy(acc, dtype=out.dtype))
    return out


class ModelNew(torch.nn.Module):
    def forward(self, A, B):
        return matmul_kernel(A.T, B)
