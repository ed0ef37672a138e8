"""Correct: an autotuned QK-norm whose first config (BLOCK_N=128) fails the kernel's own
``tl.static_assert(BLOCK_N <= HEAD_DIM)`` for HEAD_DIM=64, as in Triton's fused-attention tutorial. On a GPU
the autotuner prunes that config (its benchmark catches CompileTimeAssertionFailure) and picks among the
others, which are correct: the pruned config is named, not a correctness failure.
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK_N": 128}, num_warps=4),
                          triton.Config({"BLOCK_N": 32}, num_warps=2),
                          triton.Config({"BLOCK_N": 64}, num_warps=4)],
                 key=["HEAD_DIM"])
@triton.jit
def qk_norm_kernel(x_ptr, y_ptr, stride, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in tl.static_range(0, HEAD_DIM, BLOCK_N):
        offs = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + row * stride + offs)
        acc += x * x
    inv = 1.0 / tl.sqrt(tl.sum(acc, axis=0))
    for start in tl.static_range(0, HEAD_DIM, BLOCK_N):
        offs = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + row * stride + offs)
        tl.store(y_ptr + row * stride + offs, x * inv)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        qk_norm_kernel[(x.shape[0],)](x, y, x.stride(0), HEAD_DIM=x.shape[1])
        return y
