"""Correct matmul with the ISA API: tiles of A are transposed on the Tensor Engine (nisa.nc_transpose,
result in PSUM, copied to SBUF) and fed to nisa.nc_matmul, accumulating in PSUM.

Expect: builds=pass, correctness=pass
NKI-defect: none
"""

import torch

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def matmul_kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    out = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.tile_size.pmax
    assert M % t == 0 and K % t == 0 and N % 512 == 0
    for m in nl.affine_range(M // t):
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((t, 512), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // t):
                a_tile = nl.load(a[m * t:(m + 1) * t, k * t:(k + 1) * t])
                a_T = nl.copy(nisa.nc_transpose(a_tile))
                b_tile = nl.load(b[k * t:(k + 1) * t, n * 512:(n + 1) * 512])
                acc += nisa.nc_matmul(a_T, b_tile)
            nl.store(out[m * t:(m + 1) * t, n * 512:(n + 1) * 512], value=nl.copy(acc, dtype=out.dtype))
    return out


class ModelNew(torch.nn.Module):
    def forward(self, A, B):
        return matmul_kernel(A, B)
