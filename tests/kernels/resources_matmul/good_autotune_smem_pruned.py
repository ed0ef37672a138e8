"""Correct: the tiled fp16 matmul autotuned over two configs, the first of which (128x128x128 tiles, 4
stages) needs 256 KB of shared memory per block on sm_90 (limit 227 KB), 192 KB on sm_80 (limit 163 KB).
On a GPU the autotuner's benchmark gets OutOfResources for it, gives it an infinite time and runs the
other config (64x64x32, 2 stages), which fits: the pruned config is named, not a resources failure.
Expect: builds=pass, correctness=pass, resources=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BM": 128, "BN": 128, "BK": 128}, num_warps=8, num_stages=4),
                          triton.Config({"BM": 64, "BN": 64, "BK": 32}, num_warps=4, num_stages=2)],
                 key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
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
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a, b = a.contiguous(), b.contiguous()
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), dtype=a.dtype, device=a.device)
        grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))  # noqa: E731
        matmul_kernel[grid](a, b, c, M, N, K)
        return c
