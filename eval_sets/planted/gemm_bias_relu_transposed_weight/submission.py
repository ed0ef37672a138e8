"""relu(x @ W^T + bias) as one Triton kernel: 2-D grid of 32x32 output tiles, K in steps of 32,
W read through its strides as the transposed operand, bias and ReLU fused into the epilogue."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemm_bias_relu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, s_xm, s_xk, s_wn, s_wk, s_ym, s_yn,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * s_xm + kk[None, :] * s_xk, mask=(rm[:, None] < M) & (kk[None, :] < K),
                    other=0.0)
        wt = tl.load(w_ptr + kk[:, None] * s_wk + rn[None, :] * s_wn, mask=(kk[:, None] < K) & (rn[None, :] < N),
                     other=0.0)
        acc = tl.dot(a, wt, acc, input_precision="ieee")
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    acc = acc + bias[None, :]
    acc = tl.where(acc < 0, 0.0, acc)
    tl.store(y_ptr + rm[:, None] * s_ym + rn[None, :] * s_yn, acc.to(y_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, bias_shape: tuple):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.gemm.weight
        M, K = x.shape
        N = w.shape[0]
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        gemm_bias_relu_kernel[grid](x, w, self.bias, y, M, N, K, x.stride(0), x.stride(1), w.stride(1), w.stride(0),
                                    y.stride(0), y.stride(1), BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        return y
