"""An FP8 matmul that feeds the e4m3 tiles straight to tl.dot: on sm_90 Triton emits
wgmma with e4m3 operands (the FP8 tensor-core rate). sm_80 has no FP8 tensor cores, so the compiler
converts to f16 there itself, which is not the submission's doing. False-positive guard.

Expect: builds=pass, resources=pass
Compiled: none
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fp8_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
                    other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a, b = a.contiguous(), b.contiguous()
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), dtype=torch.float32, device=a.device)
        grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
        fp8_matmul_kernel[grid](a, b, c, M, N, K, BM=64, BN=64, BK=32, num_warps=4, num_stages=2)
        return c
